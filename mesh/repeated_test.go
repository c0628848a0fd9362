package mesh

import "testing"

func TestRepeatedIndex(t *testing.T) {
	long := make([]int32, 40)
	for i := range long {
		long[i] = int32(i)
	}
	longRep := append(append([]int32(nil), long...), 17)
	tests := []struct {
		vs   []int32
		want int32
		ok   bool
	}{
		{[]int32{1, 2, 3}, 0, false},
		{[]int32{1, 2, 2}, 2, true},
		{[]int32{5, 1, 2, 5}, 5, true},
		{long, 0, false},
		{longRep, 17, true},
		{nil, 0, false},
	}
	for _, tc := range tests {
		got, ok := RepeatedIndex(tc.vs)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RepeatedIndex(%v) = %d, %v; want %d, %v", tc.vs, got, ok, tc.want, tc.ok)
		}
	}
}

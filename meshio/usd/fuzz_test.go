package usd

import (
	"bytes"
	"reflect"
	"testing"
)

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	if err := Write(&buf, testStage(2)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("#usda 1.0\ndef Mesh \"m\" {\n int[] faceVertexCounts = [4]\n int[] faceVertexIndices = [0,1,2,3]\n point3f[] points = [(0,0,0),(1,0,0),(1,1,0),(0,1,0)]\n}\n"))
	f.Add([]byte("#usda 1.0\n(\n timeCodesPerSecond = 24\n)\ndef Mesh \"m\" (customData = {string pleatName = \"a\\\"b\"}) {\n int[] faceVertexCounts = [3]\n int[] faceVertexIndices = [0,1,2]\n point3f[] points.timeSamples = {0: [(0,0,0),(1,0,0),(1,1,0)], 1: None}\n texCoord2f[] primvars:st = [(0,0)] (interpolation = \"faceVarying\")\n int[] primvars:st:indices = [0,0,0]\n}\n"))
	f.Add([]byte("#usda 1.0\n("))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data))
		if err != nil {
			if s != nil {
				t.Fatal("stage with error")
			}
			return
		}
		if s.Validate() != nil {
			return // readable but not writable as is (an up axis of X, say)
		}
		var out bytes.Buffer
		if err := Write(&out, s); err != nil {
			t.Fatalf("Write of a valid stage: %v", err)
		}
		s2, err := Read(&out)
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, out.Bytes())
		}
		// Every value read is a float32, so the rewrite holds the same
		// points, triangles and UVs.
		for i := range s.Meshes {
			a, b := s.Meshes[i], s2.Meshes[i]
			if !reflect.DeepEqual(a.Frames, b.Frames) || !reflect.DeepEqual(a.Mesh.Tris, b.Mesh.Tris) || !reflect.DeepEqual(a.Mesh.UVs, b.Mesh.UVs) {
				t.Fatalf("mesh %d changed on rewrite", i)
			}
		}
	})
}

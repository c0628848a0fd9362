package viewer

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/pc2"
)

func newTestServer(t *testing.T) (*Server, *fixtures) {
	t.Helper()
	fx := makeFixtures(t)
	s, err := NewServer([]string{"skinning=" + fx.glb, "coarse=" + fx.seq, fx.pc2, fx.ply}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, fx
}

// traversal lists request targets that must not reach any file, with the
// status each gets.
var traversal = []struct {
	target string
	code   int
}{
	{"/../etc/passwd", 400},
	{"/..", 400},
	{"/%2e%2e/%2e%2e/etc/passwd", 400},
	{"/%2E%2E/%2E%2E/etc/passwd", 400},
	{"/.%2e/etc/passwd", 400},
	{"/%2fetc%2fpasswd", 400},
	{"/api/item/0/../../x", 400},
	{"/api/item/0/frame/..%2f..%2fetc%2fpasswd", 400},
	{"/api/item/0/mesh%00", 400},
	{"//etc/passwd", 400},
	{"/\\etc\\passwd", 400},
	{"/..\\..\\windows\\win.ini", 400},
	{"/viewer.js/../../go.mod", 400},
	{"http://example.com/etc/passwd", 400},
	{"/etc/passwd", 404},
	{"/api/file?path=/etc/passwd", 404},
	{"/api/item?path=/etc/passwd", 404},
	{"/api/items/../../etc/passwd", 400},
	{"/web/index.html", 404},
	{"/viewer.go", 404},
	{"/api/item/4/mesh", 404},
	{"/api/item/-1/mesh", 404},
	{"/api/item/+0/mesh", 404},
	{"/api/item/0x0/mesh", 404},
	{"/api/item/0/frame/-1", 404},
	{"/api/item/0/frame/1e3", 404},
	{"/api/item/0/frame/99999999999", 404},
	{"/api/item/3/frame/1", 404}, // the static sphere has one frame
	{"/api/item/0/mesh/x", 404},
	{"/api/item/0", 404},
}

func TestTraversalRejected(t *testing.T) {
	s, _ := newTestServer(t)
	for _, tc := range traversal {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		if rec.Code != tc.code {
			t.Errorf("GET %s: status %d, want %d", tc.target, rec.Code, tc.code)
		}
		if strings.Contains(rec.Body.String(), "root:") {
			t.Errorf("GET %s: body leaks a file", tc.target)
		}
	}
}

// rawGet sends one request line as given (no client-side cleaning) over a
// real connection and returns the status code.
func rawGet(t *testing.T, addr, target, host string) int {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestServeOverTCP(t *testing.T) {
	s, _ := newTestServer(t)
	u, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, "http://127.0.0.1:") || s.URL() != u {
		t.Fatalf("URL %q", u)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/")
	for _, tc := range traversal {
		if got := rawGet(t, addr, tc.target, addr); got != tc.code {
			t.Errorf("raw GET %s: status %d, want %d", tc.target, got, tc.code)
		}
	}
	for _, tc := range []struct {
		host string
		code int
	}{
		{addr, 200},
		{"localhost" + addr[strings.LastIndexByte(addr, ':'):], 200},
		{"evil.example.com", 403},
		{"evil.example.com" + addr[strings.LastIndexByte(addr, ':'):], 403},
	} {
		if got := rawGet(t, addr, "/api/items", tc.host); got != tc.code {
			t.Errorf("Host %s: status %d, want %d", tc.host, got, tc.code)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

func get(t *testing.T, s *Server, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	if rec.Code != 200 {
		t.Fatalf("GET %s: status %d: %s", target, rec.Code, rec.Body.String())
	}
	return rec
}

func TestHappyPaths(t *testing.T) {
	s, fx := newTestServer(t)
	for _, tc := range []struct{ target, ctype, contains string }{
		{"/", "text/html", `<canvas id="gl">`},
		{"/index.html", "text/html", `id="frame"`},
		{"/viewer.js", "text/javascript", "window.pleatViewer"},
		{"/style.css", "text/css", "#stage"},
		{"/api/items", "application/json", `"kind":"gltf"`},
		{"/api/item/0/mesh", "application/octet-stream", meshMagic},
		{"/api/item/0/frame/0", "application/octet-stream", frameMagic},
		{"/api/item/1/frame/29", "application/octet-stream", frameMagic},
		{"/api/item/3/frame/0", "application/octet-stream", frameMagic},
		{"/api/items?cachebust=1", "application/json", `"frames"`},
	} {
		rec := get(t, s, tc.target)
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tc.ctype) {
			t.Errorf("GET %s: Content-Type %q, want %s", tc.target, ct, tc.ctype)
		}
		if !strings.Contains(rec.Body.String(), tc.contains) {
			t.Errorf("GET %s: body lacks %q", tc.target, tc.contains)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff header", tc.target)
		}
	}
	// The page loads nothing from other origins.
	if c := get(t, s, "/").Header().Get("Content-Security-Policy"); !strings.Contains(c, "default-src 'none'") {
		t.Errorf("CSP %q", c)
	}
	for _, name := range []string{"/", "/viewer.js", "/style.css"} {
		body := get(t, s, name).Body.String()
		for _, bad := range []string{"http://", "https://", "//cdn", "import("} {
			if strings.Contains(body, bad) {
				t.Errorf("%s mentions %q: the page must work offline", name, bad)
			}
		}
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("POST", "/api/items", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d", rec.Code)
	}

	var items []ItemInfo
	if err := json.Unmarshal(get(t, s, "/api/items").Body.Bytes(), &items); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		kind   Kind
		frames int
		meshes int
	}{
		{"skinning", KindGLTF, 61, 3},
		{"coarse", KindOBJSequence, fx.frames, 1},
		{"shirt.pc2", KindPC2, fx.frames, 1},
		{"sphere.ply", KindMesh, 1, 1},
	}
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		it := items[i]
		if it.Index != i || it.Name != w.name || it.Kind != w.kind || it.Frames != w.frames || len(it.Meshes) != w.meshes {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
		if it.Vertices <= 0 || !(it.Max[1] > it.Min[1]) || !(it.FPS > 0) {
			t.Errorf("item %d: %d vertices, bounds %v..%v, fps %v", i, it.Vertices, it.Min, it.Max, it.FPS)
		}
	}
	if math.Abs(items[0].FPS-30) > 1e-6 || !items[0].Skinned {
		t.Errorf("glTF item: fps %v skinned %v, want 30 true", items[0].FPS, items[0].Skinned)
	}
}

// TestFrameBlob decodes a frame as the page does and checks it against the
// cache and curvature computed directly.
func TestFrameBlob(t *testing.T) {
	s, fx := newTestServer(t)
	c, err := pc2.ReadFile(fx.pc2)
	if err != nil {
		t.Fatal(err)
	}
	const f = 7
	b := get(t, s, fmt.Sprintf("/api/item/2/frame/%d", f)).Body.Bytes()
	le := binary.LittleEndian
	nv := int(le.Uint32(b[4:]))
	if string(b[:4]) != frameMagic || nv != c.NumPoints || le.Uint32(b[8:]) != 1 {
		t.Fatalf("header %q nv %d nm %d", b[:4], nv, le.Uint32(b[8:]))
	}
	f32 := func(off int) float64 { return float64(math.Float32frombits(le.Uint32(b[off:]))) }
	if got := f32(12); math.Abs(got-float64(f)/DefaultFPS) > 1e-6 {
		t.Errorf("time %v, want %v", got, f/float64(DefaultFPS))
	}
	if k := le.Uint32(b[16:]); k != 0 {
		t.Errorf("topology %d, want 0", k)
	}
	if len(b) != 20+8+16*nv {
		t.Fatalf("blob %d bytes, want %d", len(b), 20+8+16*nv)
	}
	pos := 28
	for v, p := range c.Frames[f] {
		for k, x := range []float64{p.X, p.Y, p.Z} {
			if got := f32(pos + 4*(3*v+k)); got != float64(float32(x)) {
				t.Fatalf("vertex %d[%d] = %v, want %v", v, k, got, x)
			}
		}
	}
	// Curvature: the cotan mean curvature and its summary, as in mesh.
	m := s.items[2].anim.Meshes[0]
	fm := &mesh.Mesh{Verts: c.Frames[f], Tris: m.Tris}
	top, err := mesh.NewTopology(fm)
	if err != nil {
		t.Fatal(err)
	}
	h := mesh.MeanCurvature(fm, top, mesh.CurvatureCotan, nil)
	st := mesh.SummarizeCurvature(h, mesh.MixedAreas(fm, nil), top)
	// float32 encoding: relative error about 6e-8.
	if got := f32(20); math.Abs(got-st.AbsSum) > 1e-6*st.AbsSum || !(st.AbsSum > 0) {
		t.Errorf("curvature sum %v, want %v", got, st.AbsSum)
	}
	if got := f32(24); math.Abs(got-st.Area) > 1e-6*st.Area {
		t.Errorf("area %v, want %v", got, st.Area)
	}
	hoff := pos + 12*nv
	for v := range h {
		if got := f32(hoff + 4*v); math.Abs(got-h[v]) > 1e-6*math.Abs(h[v])+1e-9 {
			t.Fatalf("H[%d] = %v, want %v", v, got, h[v])
		}
	}
	// The folded shirt is more curved than the plain one at the same frame.
	plain := get(t, s, fmt.Sprintf("/api/item/1/frame/%d", f)).Body.Bytes()
	if p := float64(math.Float32frombits(le.Uint32(plain[20:]))); !(st.AbsSum > 1.1*p) {
		t.Errorf("curvature sum folded %v, plain %v: folds should add curvature", st.AbsSum, p)
	}

	// The mesh blob: header, one range, the triangles.
	mb := get(t, s, "/api/item/2/mesh").Body.Bytes()
	if string(mb[:4]) != meshMagic || int(le.Uint32(mb[4:])) != nv || int(le.Uint32(mb[8:])) != len(m.Tris) {
		t.Fatalf("mesh header %q %d %d", mb[:4], le.Uint32(mb[4:]), le.Uint32(mb[8:]))
	}
	if len(mb) != 16+16+12*len(m.Tris) {
		t.Fatalf("mesh blob %d bytes", len(mb))
	}
	for i, tri := range m.Tris {
		for k := range 3 {
			if got := int32(le.Uint32(mb[32+4*(3*i+k):])); got != tri[k] {
				t.Fatalf("triangle %d = %d, want %v", i, got, tri)
			}
		}
	}
}

// TestMultiMeshRanges checks that a glTF item concatenates its meshes with
// correct offsets.
func TestMultiMeshRanges(t *testing.T) {
	s, _ := newTestServer(t)
	b := get(t, s, "/api/item/0/mesh").Body.Bytes()
	le := binary.LittleEndian
	nm := int(le.Uint32(b[12:]))
	a := s.items[0].anim
	if nm != len(a.Meshes) {
		t.Fatalf("%d meshes, want %d", nm, len(a.Meshes))
	}
	v0, t0 := 0, 0
	for i, m := range a.Meshes {
		r := b[16+16*i:]
		got := [4]int{int(le.Uint32(r)), int(le.Uint32(r[4:])), int(le.Uint32(r[8:])), int(le.Uint32(r[12:]))}
		if want := [4]int{v0, len(m.Verts), t0, len(m.Tris)}; got != want {
			t.Errorf("mesh %d range %v, want %v", i, got, want)
		}
		first := int(le.Uint32(b[16+16*nm+12*t0:]))
		if first != v0+int(m.Tris[0][0]) {
			t.Errorf("mesh %d first index %d, want %d", i, first, v0+int(m.Tris[0][0]))
		}
		v0 += len(m.Verts)
		t0 += len(m.Tris)
	}
}

func TestNewServerErrors(t *testing.T) {
	fx := makeFixtures(t)
	for _, args := range [][]string{
		nil,
		{fx.glb, fx.glb, fx.glb, fx.glb, fx.glb},
		{fx.dir + "/missing.glb"},
		{fx.dir + "/notes.txt"},
	} {
		if _, err := NewServer(args, Options{}); err == nil {
			t.Errorf("NewServer(%q): no error", args)
		}
	}
}

func TestSplitLabel(t *testing.T) {
	for _, tc := range []struct{ arg, label, path string }{
		{"out/walk.glb", "", "out/walk.glb"},
		{"skinning=out/walk.glb", "skinning", "out/walk.glb"},
		{"=x.glb", "", "=x.glb"},
		{"out/a=b.glb", "", "out/a=b.glb"},
	} {
		if l, p := splitLabel(tc.arg); l != tc.label || p != tc.path {
			t.Errorf("splitLabel(%q) = %q, %q; want %q, %q", tc.arg, l, p, tc.label, tc.path)
		}
	}
}

func TestFrameCacheEvicts(t *testing.T) {
	c := newFrameCache(100)
	for i := range 5 {
		c.put([2]int{0, i}, make([]byte, 30))
	}
	if c.size > 100 || c.get([2]int{0, 0}) != nil || c.get([2]int{0, 4}) == nil {
		t.Errorf("size %d; oldest kept %v; newest kept %v", c.size, c.get([2]int{0, 0}) != nil, c.get([2]int{0, 4}) != nil)
	}
	c.put([2]int{1, 0}, make([]byte, 101)) // over the whole budget: not kept
	if c.get([2]int{1, 0}) != nil {
		t.Error("kept a blob larger than the budget")
	}
}

func TestServeErrors(t *testing.T) {
	s, _ := newTestServer(t)
	if err := s.Serve(context.Background()); err == nil {
		t.Error("Serve before Listen: no error")
	}
	if _, err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Listen("127.0.0.1:0"); err == nil {
		t.Error("second Listen: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Serve(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Serve with a done context: %v", err)
	}
}

// BenchmarkFrameBlob measures decoding and encoding one uncached frame of
// the skinned walk (body, shirt, trousers) with its curvature.
func BenchmarkFrameBlob(b *testing.B) {
	fx := makeFixtures(b)
	s, err := NewServer([]string{fx.glb}, Options{CacheBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	it := s.items[0]
	b.ReportMetric(float64(it.info.Vertices), "verts")
	b.ReportAllocs()
	var sink int
	for i := 0; b.Loop(); i++ {
		blob, err := it.frameBlob(i % it.anim.NumFrames)
		if err != nil {
			b.Fatal(err)
		}
		sink += len(blob)
	}
	_ = sink
}

package viewer

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

//go:embed web/index.html web/viewer.js web/style.css
var webFS embed.FS

// DefaultAddr is the address a Server listens on by default: loopback only.
const DefaultAddr = "127.0.0.1:7270"

// MaxItems is the most results one Server shows side by side.
const MaxItems = 4

// DefaultCacheBytes is the default budget for encoded frames kept in
// memory (bytes).
const DefaultCacheBytes = 512 << 20

// Options configures a Server. The zero value is the default.
type Options struct {
	// Load passes the PC2 mesh and frame rate to Load.
	Load LoadOptions
	// CacheBytes caps the memory for encoded frames; 0 means
	// DefaultCacheBytes, negative disables the cache.
	CacheBytes int64
}

// ItemInfo describes one served result (GET /api/items).
type ItemInfo struct {
	Index     int     `json:"index"`
	Name      string  `json:"name"`
	Kind      Kind    `json:"kind"`
	Frames    int     `json:"frames"`
	FPS       float64 `json:"fps"`
	Skinned   bool    `json:"skinned"`
	Vertices  int     `json:"vertices"`
	Triangles int     `json:"triangles"`
	// VaryingTopology reports an item whose frames may differ in vertex
	// count and triangles (an OBJ sequence); each frame names its
	// topology, served by /api/item/{i}/mesh/{k}. Vertices, Triangles and
	// Meshes are frame 0's.
	VaryingTopology bool `json:"varyingTopology"`
	// Topologies counts the distinct topologies met while loading (a
	// sample of frames), at least 1.
	Topologies int        `json:"topologies"`
	Meshes     []MeshInfo `json:"meshes"`
	// Min and Max bound the animation (metres; see Animation.Bounds).
	Min [3]float64 `json:"min"`
	Max [3]float64 `json:"max"`
	// Span is the largest extent of a single frame along each axis
	// (metres; see Animation.Bounds).
	Span [3]float64 `json:"span"`
}

// MeshInfo describes one mesh of an item.
type MeshInfo struct {
	Name      string `json:"name"`
	Vertices  int    `json:"vertices"`
	Triangles int    `json:"triangles"`
}

// Server serves the viewer page and the results it was given. Its methods
// are safe for concurrent use.
type Server struct {
	items     []*item
	cache     *frameCache
	checkHost atomic.Bool

	ln  net.Listener
	url string
}

// NewServer loads the results named by args (at most MaxItems), each a
// path Load accepts, optionally prefixed "LABEL=" to name its viewport
// (e.g. "skinning=out/walk.glb"); without a label the file's base name is
// shown. Every file is read now; the server never opens any other.
func NewServer(args []string, opt Options) (*Server, error) {
	if len(args) == 0 {
		return nil, errors.New("viewer: nothing to serve")
	}
	if len(args) > MaxItems {
		return nil, fmt.Errorf("viewer: %d results; at most %d side by side", len(args), MaxItems)
	}
	cb := opt.CacheBytes
	if cb == 0 {
		cb = DefaultCacheBytes
	}
	s := &Server{cache: newFrameCache(max(cb, 0))}
	for i, arg := range args {
		label, p := splitLabel(arg)
		a, err := Load(p, opt.Load)
		if err != nil {
			return nil, err
		}
		if label == "" {
			label = path.Base(strings.ReplaceAll(p, "\\", "/"))
			if label == "." || label == "/" {
				label = p
			}
		}
		it, err := newItem(i, label, p, a)
		if err != nil {
			return nil, err
		}
		s.items = append(s.items, it)
	}
	return s, nil
}

// splitLabel splits "LABEL=PATH" when PATH is not itself an existing file
// name containing "=" and LABEL holds no path separator.
func splitLabel(arg string) (label, p string) {
	i := strings.IndexByte(arg, '=')
	if i <= 0 {
		return "", arg
	}
	if _, err := os.Stat(arg); err == nil {
		return "", arg
	}
	if strings.ContainsAny(arg[:i], `/\`) {
		return "", arg
	}
	return arg[:i], arg[i+1:]
}

// Items describes the served results.
func (s *Server) Items() []ItemInfo {
	out := make([]ItemInfo, len(s.items))
	for i, it := range s.items {
		out[i] = it.info
	}
	return out
}

// Listen binds addr ("host:port"; "" means DefaultAddr, port 0 picks a
// free one) and returns the viewer's URL. While bound to a loopback
// address the server refuses requests naming another host (see package
// doc).
func (s *Server) Listen(addr string) (string, error) {
	if s.ln != nil {
		return "", errors.New("viewer: Listen called twice")
	}
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	ta := ln.Addr().(*net.TCPAddr)
	host := ta.IP.String()
	if ta.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	s.checkHost.Store(ta.IP.IsLoopback())
	s.ln = ln
	s.url = "http://" + net.JoinHostPort(host, strconv.Itoa(ta.Port)) + "/"
	return s.url, nil
}

// URL returns the viewer's URL after Listen ("" before).
func (s *Server) URL() string { return s.url }

// Serve answers requests on the address bound by Listen until ctx is done,
// then shuts down gracefully (5 s at most) and returns nil.
func (s *Server) Serve(ctx context.Context) error {
	if s.ln == nil {
		return errors.New("viewer: Serve before Listen")
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(s.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			return err
		}
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// ListenAndServe is Listen then Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if _, err := s.Listen(addr); err != nil {
		return err
	}
	return s.Serve(ctx)
}

// badTarget reports a request target the server never serves: not a plain
// absolute path, or one holding "..", backslashes, empty segments or any
// percent-encoding (no valid route needs it, and encoded dots, slashes
// and NULs are how traversal hides).
func badTarget(target string) bool {
	p, _, _ := strings.Cut(target, "?")
	if !strings.HasPrefix(p, "/") {
		return true
	}
	return strings.Contains(p, "..") || strings.ContainsAny(p, "\\%\x00") || strings.Contains(p, "//")
}

// allowedHost reports whether a Host header may reach a loopback-bound
// server: an IP literal or localhost. Any other name may be an attacker's
// domain re-pointed at 127.0.0.1 (DNS rebinding).
func allowedHost(hostport string) bool {
	h := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if net.ParseIP(h) != nil {
		return true
	}
	h = strings.ToLower(h)
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// ServeHTTP implements http.Handler (see the package doc for the routes).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	target := r.RequestURI
	if target == "" {
		target = r.URL.RequestURI()
	}
	if badTarget(target) || strings.Contains(r.URL.Path, "..") {
		http.Error(w, "bad request path", http.StatusBadRequest)
		return
	}
	if s.checkHost.Load() && !allowedHost(r.Host) {
		http.Error(w, "forbidden host", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	switch p {
	case "/", "/index.html":
		s.static(w, r, "index.html", "text/html; charset=utf-8")
		return
	case "/viewer.js":
		s.static(w, r, "viewer.js", "text/javascript; charset=utf-8")
		return
	case "/style.css":
		s.static(w, r, "style.css", "text/css; charset=utf-8")
		return
	case "/api/items":
		hd.Set("Cache-Control", "no-store")
		hd.Set("Content-Type", "application/json")
		b, err := json.Marshal(s.Items())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Write(b)
		return
	}
	seg := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(seg) < 4 || seg[0] != "api" || seg[1] != "item" {
		http.NotFound(w, r)
		return
	}
	i, ok := index(seg[2], len(s.items))
	if !ok {
		http.NotFound(w, r)
		return
	}
	it := s.items[i]
	switch {
	case len(seg) == 4 && seg[3] == "mesh":
		blob(w, r, it.mesh)
	case len(seg) == 5 && seg[3] == "mesh":
		k, ok := index(seg[4], it.anim.NumTopologies())
		if !ok {
			http.NotFound(w, r)
			return
		}
		key := [2]int{i, -1 - k}
		b := s.cache.get(key)
		if b == nil {
			ms, err := it.anim.Topology(k)
			if err != nil {
				http.NotFound(w, r)
				return
			}
			b = meshBlob(ms)
			s.cache.put(key, b)
		}
		blob(w, r, b)
	case len(seg) == 5 && seg[3] == "frame":
		f, ok := index(seg[4], it.anim.NumFrames)
		if !ok {
			http.NotFound(w, r)
			return
		}
		b := s.cache.get([2]int{i, f})
		if b == nil {
			var err error
			if b, err = it.frameBlob(f); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			s.cache.put([2]int{i, f}, b)
		}
		blob(w, r, b)
	default:
		http.NotFound(w, r)
	}
}

// index parses a decimal index in [0, n): digits only, no sign or spaces.
func index(s string, n int) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(s)
	return i, err == nil && i < n
}

func blob(w http.ResponseWriter, r *http.Request, b []byte) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// csp allows only the page's own files: no inline script, no other
// origin, nothing fetched from the network.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) static(w http.ResponseWriter, r *http.Request, name, ctype string) {
	b, err := fs.ReadFile(webFS, "web/"+name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", csp)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

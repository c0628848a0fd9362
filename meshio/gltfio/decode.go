package gltfio

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/qmuntal/gltf"
)

// MaxFileSize is the largest input Decode reads (bytes).
const MaxFileSize = 1 << 31

// Decoder reads glTF scenes. The zero Decoder welds vertices and rejects
// external buffers. A Decoder is safe for concurrent use.
type Decoder struct {
	// FS resolves relative buffer URIs (a .gltf with a side .bin file);
	// nil makes them an error. ReadFile uses the file's directory.
	FS fs.FS
	// NoWeld keeps glTF's vertices as stored (split at UV seams and hard
	// edges) instead of welding them (see the package documentation).
	NoWeld bool
}

// Decode reads a .glb or .gltf scene from r with the zero Decoder; name is
// used in errors only.
func Decode(r io.Reader, name string) (*Scene, error) {
	var d Decoder
	return d.Decode(r, name)
}

// ReadFile reads a .glb or .gltf file, resolving external buffers next to it.
func ReadFile(path string) (*Scene, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := Decoder{FS: os.DirFS(filepath.Dir(path))}
	return d.Decode(f, path)
}

// Decode reads a .glb or .gltf scene from r; name is used in errors only.
// Errors about the content are *FormatError.
func (d *Decoder) Decode(r io.Reader, name string) (s *Scene, err error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileSize {
		return nil, &FormatError{File: name, Msg: fmt.Sprintf("larger than %d bytes", MaxFileSize)}
	}
	// Last resort only: the reader validates what it indexes, and the fuzz
	// test calls decodeBytes directly so that a panic there is found.
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, &FormatError{File: name, Msg: fmt.Sprintf("malformed input (internal error: %v)", p)}
		}
	}()
	return d.decodeBytes(data, name)
}

func (d *Decoder) decodeBytes(data []byte, name string) (*Scene, error) {
	doc, err := d.parse(data, name)
	if err != nil {
		return nil, err
	}
	r := &reader{name: name, doc: doc}
	return r.scene(d.NoWeld)
}

const (
	glbMagic    = 0x46546C67 // "glTF"
	glbChunkJS  = 0x4E4F534A // "JSON"
	glbChunkBin = 0x004E4942 // "BIN\0"
)

// parse splits the container, decodes the JSON and loads every buffer.
func (d *Decoder) parse(data []byte, name string) (*gltf.Document, error) {
	ferr := func(elem, format string, args ...any) error {
		return &FormatError{File: name, Elem: elem, Msg: fmt.Sprintf(format, args...)}
	}
	var js, bin []byte
	glb := len(data) >= 4 && binary.LittleEndian.Uint32(data) == glbMagic
	if glb {
		if len(data) < 12 {
			return nil, ferr("GLB header", "truncated (%d bytes)", len(data))
		}
		if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
			return nil, ferr("GLB header", "version %d, want 2", v)
		}
		total := binary.LittleEndian.Uint32(data[8:])
		if uint64(total) > uint64(len(data)) {
			return nil, ferr("GLB header", "length %d exceeds the %d bytes read (truncated file)", total, len(data))
		}
		if total < 12 {
			return nil, ferr("GLB header", "length %d", total)
		}
		data = data[:total]
		off, k := 12, 0
		for off < len(data) {
			if len(data)-off < 8 {
				return nil, ferr(fmt.Sprintf("GLB chunk %d", k), "truncated chunk header")
			}
			clen := uint64(binary.LittleEndian.Uint32(data[off:]))
			ctype := binary.LittleEndian.Uint32(data[off+4:])
			off += 8
			if clen > uint64(len(data)-off) {
				return nil, ferr(fmt.Sprintf("GLB chunk %d", k), "length %d overruns the file (%d bytes left)", clen, len(data)-off)
			}
			chunk := data[off : off+int(clen)]
			switch {
			case k == 0 && ctype != glbChunkJS:
				return nil, ferr("GLB chunk 0", "type %#x, want JSON", ctype)
			case k == 0:
				js = chunk
			case k == 1 && ctype == glbChunkBin:
				bin = chunk
			}
			off += int(clen)
			k++
		}
		if js == nil {
			return nil, ferr("GLB", "no JSON chunk")
		}
	} else {
		t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
		if len(t) == 0 || t[0] != '{' {
			head := data
			if len(head) > 4 {
				head = head[:4]
			}
			return nil, ferr("", "not glTF: bad magic %q (want \"glTF\" or a JSON object)", head)
		}
		js = t
	}
	doc := new(gltf.Document)
	if err := json.Unmarshal(js, doc); err != nil {
		return nil, ferr("JSON", "%v", err)
	}
	if !strings.HasPrefix(doc.Asset.Version, "2.") {
		return nil, ferr("asset", "glTF version %q, want 2.x", doc.Asset.Version)
	}
	for _, e := range doc.ExtensionsRequired {
		// Compressed geometry cannot be read; other required extensions
		// (quantization, materials, textures) do not change what we read.
		if strings.Contains(e, "draco") || strings.Contains(e, "meshopt") {
			return nil, ferr("extensionsRequired", "unsupported extension %s", e)
		}
	}
	for i, b := range doc.Buffers {
		el := fmt.Sprintf("buffer %d", i)
		if b == nil {
			return nil, ferr(el, "null")
		}
		if b.ByteLength < 1 {
			return nil, ferr(el, "byteLength %d", b.ByteLength)
		}
		var raw []byte
		switch {
		case b.URI == "" && glb && i == 0:
			if bin == nil {
				return nil, ferr(el, "GLB has no BIN chunk")
			}
			raw = bin
		case b.URI == "":
			return nil, ferr(el, "no uri")
		case strings.HasPrefix(b.URI, "data:"):
			comma := strings.IndexByte(b.URI, ',')
			if comma < 0 || !strings.HasSuffix(b.URI[:comma], ";base64") {
				return nil, ferr(el, "data URI is not base64")
			}
			var err error
			raw, err = base64.StdEncoding.DecodeString(b.URI[comma+1:])
			if err != nil {
				return nil, ferr(el, "data URI: %v", err)
			}
		default:
			if d.FS == nil {
				return nil, ferr(el, "external uri %q needs a file system (use ReadFile or Decoder.FS)", b.URI)
			}
			p, err := url.PathUnescape(b.URI)
			if err != nil || !fs.ValidPath(p) {
				return nil, ferr(el, "bad or non-local uri %q", b.URI)
			}
			raw, err = fs.ReadFile(d.FS, p)
			if err != nil {
				return nil, ferr(el, "%v", err)
			}
		}
		if len(raw) < b.ByteLength {
			return nil, ferr(el, "byteLength %d but only %d bytes of data", b.ByteLength, len(raw))
		}
		b.Data = raw[:b.ByteLength:b.ByteLength]
	}
	return doc, nil
}

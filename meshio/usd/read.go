package usd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxDepth caps prim and value nesting, so hostile input cannot exhaust
// the stack.
const maxDepth = 64

// ReadFile reads a .usda layer, or the root layer of a .usdz package (its
// first file, which must be usda text). Errors name the file.
func ReadFile(path string) (*Stage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s *Stage
	if strings.EqualFold(filepath.Ext(path), ".usdz") {
		s, err = ReadUSDZ(data)
	} else {
		s, err = Read(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ReadUSDZ reads the root layer of a usdz package: its first file, which
// must be a .usda (or text .usd) layer stored without compression.
func ReadUSDZ(data []byte) (*Stage, error) {
	name, layer, err := firstZipFile(data)
	if err != nil {
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(name))
	if ext != ".usda" && ext != ".usd" {
		return nil, fmt.Errorf("usd: usdz root layer %q: only usda text layers are read", name)
	}
	s, err := Read(bytes.NewReader(layer))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// Read parses a usda text layer and returns its meshes (see the package
// documentation for the subset read).
func Read(r io.Reader) (*Stage, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, line: 1}
	s, err := p.layer()
	if err != nil {
		return nil, fmt.Errorf("usd: line %d: %w", p.line, err)
	}
	return s, nil
}

// parser reads usda text; line is the current line (1-based).
type parser struct {
	src   []byte
	pos   int
	line  int
	depth int
}

var errEOF = errors.New("unexpected end of file")

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == ';':
			p.pos++
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (p *parser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *parser) expect(c byte) error {
	if got := p.peek(); got != c {
		if got == 0 {
			return fmt.Errorf("want %q: %w", c, errEOF)
		}
		return fmt.Errorf("want %q, found %q", c, got)
	}
	p.pos++
	return nil
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// ident reads an identifier; namespaced property names (primvars:st) and
// suffixes (points.timeSamples) are included.
func (p *parser) ident() (string, error) {
	if c := p.peek(); !isIdentStart(c) {
		return "", fmt.Errorf("want a name, found %q", c)
	}
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if !(isIdentStart(c) || c >= '0' && c <= '9' || c == ':' || c == '.') {
			break
		}
		p.pos++
	}
	return string(p.src[start:p.pos]), nil
}

// str reads a string literal: "...", '...' or triple-quoted.
func (p *parser) str() (string, error) {
	q := p.peek()
	if q != '"' && q != '\'' {
		return "", fmt.Errorf("want a string, found %q", q)
	}
	triple := bytes.HasPrefix(p.src[p.pos:], []byte{q, q, q})
	if triple {
		p.pos += 3
	} else {
		p.pos++
	}
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return "", fmt.Errorf("string: %w", errEOF)
		}
		c := p.src[p.pos]
		switch {
		case c == q && (!triple || bytes.HasPrefix(p.src[p.pos:], []byte{q, q, q})):
			if triple {
				p.pos += 3
			} else {
				p.pos++
			}
			return b.String(), nil
		case c == '\n' && !triple:
			return "", fmt.Errorf("newline in string")
		case c == '\\' && p.pos+1 < len(p.src):
			p.pos++
			e := p.src[p.pos]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				if p.pos+2 >= len(p.src) {
					return "", fmt.Errorf("string: %w", errEOF)
				}
				v, err := strconv.ParseUint(string(p.src[p.pos+1:p.pos+3]), 16, 8)
				if err != nil {
					return "", fmt.Errorf("bad \\x escape in string")
				}
				b.WriteByte(byte(v))
				p.pos += 2
			default:
				b.WriteByte(e)
			}
			p.pos++
		default:
			if c == '\n' {
				p.line++
			}
			b.WriteByte(c)
			p.pos++
		}
	}
}

// numToken returns the characters of a number.
func (p *parser) numToken() (string, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			break
		}
		p.pos++
	}
	if start == p.pos {
		if p.pos >= len(p.src) {
			return "", fmt.Errorf("want a number: %w", errEOF)
		}
		return "", fmt.Errorf("want a number, found %q", p.src[p.pos])
	}
	return string(p.src[start:p.pos]), nil
}

// number reads a finite number of the given bit size (32 or 64).
func (p *parser) number(bits int) (float64, error) {
	t, err := p.numToken()
	if err != nil {
		return 0, err
	}
	x, err := strconv.ParseFloat(t, bits)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("bad or non-finite number %q", t)
	}
	return x, nil
}

// numArray reads '[' ... ']' of numbers (width 0) or of tuples of width
// numbers, flattened.
func (p *parser) numArray(width, bits int) ([]float64, error) {
	if err := p.expect('['); err != nil {
		return nil, err
	}
	var out []float64
	for {
		if p.peek() == ']' {
			p.pos++
			return out, nil
		}
		if width == 0 {
			x, err := p.number(bits)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		} else {
			if err := p.expect('('); err != nil {
				return nil, err
			}
			for k := range width {
				if k > 0 {
					if err := p.expect(','); err != nil {
						return nil, err
					}
				}
				x, err := p.number(bits)
				if err != nil {
					return nil, err
				}
				out = append(out, x)
			}
			if err := p.expect(')'); err != nil {
				return nil, err
			}
		}
		if c := p.peek(); c == ',' {
			p.pos++
		} else if c != ']' {
			if c == 0 {
				return nil, fmt.Errorf("array: %w", errEOF)
			}
			return nil, fmt.Errorf("array: want ',' or ']', found %q", c)
		}
	}
}

// value reads any value: a number, string, name, path <...>, asset
// @...@, tuple, list or dictionary. Numbers and strings come back as
// float64 and string, names as name, lists and tuples as []any; other
// values as nil.
func (p *parser) value() (any, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, fmt.Errorf("values nested deeper than %d", maxDepth)
	}
	c := p.peek()
	switch {
	case c == '"' || c == '\'':
		return p.str()
	case c == '(' || c == '[':
		end := byte(')')
		if c == '[' {
			end = ']'
		}
		p.pos++
		var out []any
		for {
			if p.peek() == end {
				p.pos++
				return out, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			if n := p.peek(); n == ',' {
				p.pos++
			} else if n != end {
				return nil, fmt.Errorf("want ',' or %q, found %q", end, n)
			}
		}
	case c == '{':
		return nil, p.dict(nil)
	case c == '<' || c == '@':
		end := byte('>')
		if c == '@' {
			end = '@'
		}
		i := bytes.IndexByte(p.src[p.pos+1:], end)
		if i < 0 {
			return nil, errEOF
		}
		p.line += bytes.Count(p.src[p.pos:p.pos+1+i], []byte{'\n'})
		p.pos += i + 2
		return nil, nil
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		t, err := p.numToken()
		if err != nil {
			return nil, err
		}
		x, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q", t)
		}
		return x, nil
	case isIdentStart(c):
		id, err := p.ident()
		return name(id), err
	case c == 0:
		return nil, fmt.Errorf("want a value: %w", errEOF)
	}
	return nil, fmt.Errorf("want a value, found %q", c)
}

// name is an unquoted word in a value (a token such as true or None).
type name string

// dict reads a dictionary { type key = value ... } or a time-sample map
// { t: value, ... }, calling set (when not nil) for each dictionary entry.
func (p *parser) dict(set func(key string, v any)) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	for {
		c := p.peek()
		if c == '}' {
			p.pos++
			return nil
		}
		if c == 0 {
			return fmt.Errorf("dictionary: %w", errEOF)
		}
		if !isIdentStart(c) && c != '"' && c != '\'' {
			// A time sample: number ':' value.
			if _, err := p.number(64); err != nil {
				return err
			}
			if err := p.expect(':'); err != nil {
				return err
			}
		} else {
			// [type[]] key = value, or dictionary key = {...}.
			var key any
			for p.peek() != '=' {
				k, err := p.value()
				if err != nil {
					return err
				}
				key = k
				if p.peek() == '[' {
					p.pos++
					if err := p.expect(']'); err != nil {
						return err
					}
				}
			}
			p.pos++
			v, err := p.value()
			if err != nil {
				return err
			}
			if set != nil {
				switch k := key.(type) {
				case name:
					set(string(k), v)
				case string:
					set(k, v)
				}
			}
			if p.peek() == ',' {
				p.pos++
			}
			continue
		}
		if _, err := p.value(); err != nil {
			return err
		}
		if p.peek() == ',' {
			p.pos++
		}
	}
}

package character

import (
	"errors"
	"fmt"
)

// ParseError reports bad data in a character file (.mhskel, .mhw, .mhclo):
// the file name, the 1-based line where the problem is (0 when not known,
// as for JSON fields), the field or element concerned, and what is wrong.
type ParseError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *ParseError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// Errors returned (possibly wrapped) by the loaders.
var (
	// ErrNoSkin means a glTF file holds no skinned mesh.
	ErrNoSkin = errors.New("character: no skinned mesh")
	// ErrNoWeights means a kept body vertex has no skinning weight at all.
	ErrNoWeights = errors.New("character: vertex has no skinning weight")
)

// Caps on what the parsers accept, so that malformed or hostile input
// cannot exhaust memory.
const (
	// MaxVerts bounds vertex indices in .mhskel, .mhw and .mhclo files and
	// the number of garment vertices.
	MaxVerts = 1 << 24
	// MaxFileBytes bounds the size of a JSON file (.mhskel, .mhw) and of one
	// .mhclo line.
	MaxFileBytes = 256 << 20
)

func perr(file string, line int, field, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Package section frames the tagged, checksummed sections of pleat's
// binary formats (the wrinkle database .pdb and the resynthesis database
// .prsd): a 4-byte tag, the payload length as a little-endian uint64, the
// payload, and a CRC-32C (Castagnoli) of tag, length and payload as a
// little-endian uint32. Readers get the error's text without a file or
// field name, so each format wraps it in its own error type.
package section

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Overhead is the bytes a section adds to its payload.
const Overhead = 16

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Append appends a section of tag and payload to b.
func Append(b []byte, tag [4]byte, payload []byte) []byte {
	start := len(b)
	b = append(b, tag[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], crcTable))
}

// Read reads the section at the front of b, whose payload may be at most
// max bytes, and returns its tag, its payload (aliasing b) and the bytes
// after it. The error says what is wrong: truncated, too long, or a
// checksum mismatch.
func Read(b []byte, max uint64) (tag [4]byte, payload, rest []byte, err error) {
	if len(b) < Overhead {
		return tag, nil, nil, fmt.Errorf("truncated (%d bytes left, a section needs at least %d)", len(b), Overhead)
	}
	copy(tag[:], b)
	n := binary.LittleEndian.Uint64(b[4:])
	if n > max || n > uint64(len(b)-Overhead) {
		return tag, nil, nil, fmt.Errorf("section %q of %d bytes is truncated (%d bytes left)", tag[:], n, len(b)-Overhead)
	}
	end := 12 + int(n)
	if crc32.Checksum(b[:end], crcTable) != binary.LittleEndian.Uint32(b[end:]) {
		return tag, nil, nil, fmt.Errorf("section %q checksum mismatch (corrupt)", tag[:])
	}
	return tag, b[12:end], b[end+4:], nil
}

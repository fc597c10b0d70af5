package tools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// checkPNG verifies that b is one PNG file and nothing else: the
// signature, an IHDR chunk first, every chunk's CRC, an IEND chunk last
// and no byte after it. It returns the picture's size from IHDR. The
// pixels are not decoded.
func checkPNG(b []byte) (width, height int, err error) {
	if !bytes.HasPrefix(b, pngMagic) {
		return 0, 0, errors.New("no PNG signature")
	}
	rest := b[len(pngMagic):]
	for i := 0; ; i++ {
		if len(rest) < 12 {
			return 0, 0, errors.New("cut short before its IEND chunk")
		}
		n := binary.BigEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-12) {
			return 0, 0, fmt.Errorf("chunk %d runs past the end", i)
		}
		typ, data := rest[4:8], rest[8:8+n]
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:]) {
			return 0, 0, fmt.Errorf("chunk %d (%q) fails its CRC", i, typ)
		}
		switch {
		case i == 0 && (string(typ) != "IHDR" || n != 13):
			return 0, 0, errors.New("the first chunk is not IHDR")
		case i == 0:
			w, h := binary.BigEndian.Uint32(data), binary.BigEndian.Uint32(data[4:])
			if w == 0 || h == 0 || w > 1<<20 || h > 1<<20 {
				return 0, 0, fmt.Errorf("a size of %d×%d", w, h)
			}
			width, height = int(w), int(h)
		}
		rest = rest[12+n:]
		if string(typ) == "IEND" {
			if len(rest) > 0 {
				return 0, 0, fmt.Errorf("%d bytes after its IEND chunk", len(rest))
			}
			return width, height, nil
		}
	}
}

package secretenv

import "bytes"

// scrubBlock overwrites in place, with NUL bytes, the value of every
// NAME=value entry of a NUL-separated environment block whose name is one
// of names, and reports whether it changed anything.
func scrubBlock(block []byte, names []string) bool {
	changed := false
	for off := 0; off < len(block); {
		end := bytes.IndexByte(block[off:], 0)
		if end < 0 {
			end = len(block)
		} else {
			end += off
		}
		entry := block[off:end]
		for _, n := range names {
			if len(entry) > len(n) && string(entry[:len(n)]) == n && entry[len(n)] == '=' {
				for i := off + len(n) + 1; i < end; i++ {
					if block[i] != 0 {
						block[i] = 0
						changed = true
					}
				}
			}
		}
		off = end + 1
	}
	return changed
}

//go:build !linux

package space

import "os"

// aiDir is unused where there is no openat2.
type aiDir struct{}

// openNoLinks is not available here: the caller checks each component.
func (s *Space) openNoLinks(string) (*os.File, bool, error) { return nil, false, nil }

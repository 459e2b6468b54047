//go:build !linux

package space

import (
	"os"

	"github.com/ryekit/rye/internal/filestat"
)

// aiDir is unused where there is no openat2.
type aiDir struct{}

// openNoLinks is not available here: the caller checks each component.
func (s *Space) openNoLinks(string) (*os.File, bool, error) { return nil, false, nil }

// statData is not available here: the caller lstats the file's path.
func (s *Space) statData(string) (filestat.Stat, bool, bool, error) {
	return filestat.Stat{}, false, false, nil
}

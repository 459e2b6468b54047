package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode"
)

// limits bound what an archive may hold. A bundle is a set of items, each
// at most 1 MiB (bundle.MaxItemSize), so anything far beyond that is
// hostile or broken.
type limits struct {
	MaxCompressed int64 // bytes of the .tar.gz itself
	MaxEntry      int64 // bytes of one file
	MaxTotal      int64 // bytes of all files, decompressed
	MaxEntries    int   // number of entries
}

// defaultLimits are the limits rye applies.
var defaultLimits = limits{MaxCompressed: 64 << 20, MaxEntry: 1 << 20, MaxTotal: 256 << 20, MaxEntries: 20000}

// file is one file of an archive.
type file struct {
	Path string // slash-separated, starting with ".ai/"
	Data []byte
	Exec bool // written 0755 rather than 0644
}

// archive is the content of a bundle file, read in memory.
type archive struct {
	Files  []file // in archive order
	byPath map[string]*file
}

// Get returns the file at p, or nil.
func (a *archive) Get(p string) *file { return a.byPath[p] }

// unsafeError is an archive refused for its shape, before its content is
// looked at: the entry and why.
type unsafeError struct {
	Entry  string
	Reason string
}

func (e *unsafeError) Error() string {
	if e.Entry == "" {
		return "unsafe archive: " + e.Reason
	}
	return fmt.Sprintf("unsafe archive: entry %q: %s", e.Entry, e.Reason)
}

// ReadArchive reads a .tar.gz bundle entirely in memory and refuses
// anything a bundle never contains or that could write outside its
// destination: absolute paths, "..", paths outside .ai/, links, devices,
// setuid/setgid/sticky bits, duplicate entries, entries that differ only
// in case (they collide on case-insensitive file systems), and sizes over
// the limits, counted as the data decompresses (a gzip bomb stops at the
// limit, not at the end of memory). Directory entries are accepted and
// ignored (rye writes none).
func ReadArchive(data []byte, lim limits) (*archive, error) {
	if int64(len(data)) > lim.MaxCompressed {
		return nil, &unsafeError{Reason: fmt.Sprintf("the file is larger than %d bytes", lim.MaxCompressed)}
	}
	src := bytes.NewReader(data)
	gz, err := gzip.NewReader(src)
	if err != nil {
		return nil, &unsafeError{Reason: "not a gzip file: " + err.Error()}
	}
	gz.Multistream(false)
	// total counts every decompressed byte, tar headers and padding
	// included, so that no layout can make it inflate past the limit.
	total := &limitedReader{r: gz, left: lim.MaxTotal + 64<<10}
	tr := tar.NewReader(total)
	a := &archive{byPath: map[string]*file{}}
	seen := map[string]bool{}
	folded := map[string]string{}
	var size int64
	for entries := 0; ; entries++ {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if total.exceeded {
				return nil, &unsafeError{Reason: fmt.Sprintf("it decompresses to more than %d bytes", lim.MaxTotal)}
			}
			return nil, &unsafeError{Reason: "not a valid tar archive: " + err.Error()}
		}
		if entries >= lim.MaxEntries {
			return nil, &unsafeError{Reason: fmt.Sprintf("more than %d entries", lim.MaxEntries)}
		}
		name := h.Name
		if err := checkEntryName(name); err != "" {
			return nil, &unsafeError{Entry: name, Reason: err}
		}
		if reason := checkEntryType(h); reason != "" {
			return nil, &unsafeError{Entry: name, Reason: reason}
		}
		if h.Typeflag == tar.TypeDir {
			continue
		}
		if seen[name] {
			return nil, &unsafeError{Entry: name, Reason: "appears twice"}
		}
		seen[name] = true
		key := strings.ToLower(name)
		if other, dup := folded[key]; dup {
			return nil, &unsafeError{Entry: name, Reason: fmt.Sprintf("differs from %q only in case (they would collide on a case-insensitive file system)", other)}
		}
		folded[key] = name
		if h.Size > lim.MaxEntry {
			return nil, &unsafeError{Entry: name, Reason: fmt.Sprintf("is %d bytes, over the %d-byte limit for one file", h.Size, lim.MaxEntry)}
		}
		size += h.Size
		if size > lim.MaxTotal {
			return nil, &unsafeError{Reason: fmt.Sprintf("its files add up to more than %d bytes", lim.MaxTotal)}
		}
		body, err := io.ReadAll(io.LimitReader(tr, lim.MaxEntry+1))
		if err != nil {
			if total.exceeded {
				return nil, &unsafeError{Reason: fmt.Sprintf("it decompresses to more than %d bytes", lim.MaxTotal)}
			}
			return nil, &unsafeError{Entry: name, Reason: "cannot be read: " + err.Error()}
		}
		if int64(len(body)) != h.Size {
			return nil, &unsafeError{Entry: name, Reason: "its size does not match its header"}
		}
		a.Files = append(a.Files, file{Path: name, Data: body, Exec: h.Mode&0o111 != 0})
	}
	// Nothing may follow the tar stream but its zero padding, and nothing
	// may follow the gzip stream (reading to its end also checks its CRC).
	rest, err := io.ReadAll(io.LimitReader(total, 1<<20))
	if err != nil || len(bytes.Trim(rest, "\x00")) > 0 {
		return nil, &unsafeError{Reason: "data after the end of the tar archive"}
	}
	if src.Len() > 0 {
		return nil, &unsafeError{Reason: "data after the end of the gzip stream"}
	}
	for i := range a.Files {
		a.byPath[a.Files[i].Path] = &a.Files[i]
	}
	return a, nil
}

// checkEntryName returns why a path cannot be a bundle entry, or "".
func checkEntryName(name string) string {
	switch {
	case name == "":
		return "empty name"
	case strings.HasPrefix(name, "/") || (len(name) >= 2 && name[1] == ':'):
		return "absolute path"
	case strings.Contains(name, "\\"):
		return "backslash in the path (only / separates folders)"
	}
	for _, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if seg == ".." {
			return "path goes up (..) out of the destination"
		}
		if seg == "" || seg == "." {
			return "path is not clean (empty or . segment)"
		}
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "control character in the path"
		}
	}
	if !strings.HasPrefix(name, ".ai/") {
		return "outside .ai/ (a bundle holds only .ai/ files)"
	}
	return ""
}

// checkEntryType returns why an entry's type or mode is refused, or "".
func checkEntryType(h *tar.Header) string {
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeDir:
	case tar.TypeSymlink:
		return "symbolic link (to " + h.Linkname + ")"
	case tar.TypeLink:
		return "hard link (to " + h.Linkname + ")"
	case tar.TypeChar, tar.TypeBlock:
		return "device file"
	case tar.TypeFifo:
		return "named pipe"
	default:
		return fmt.Sprintf("unsupported entry type %q", string(h.Typeflag))
	}
	if h.Mode&0o7000 != 0 {
		return fmt.Sprintf("mode %o has setuid, setgid or sticky bits", h.Mode)
	}
	return ""
}

// limitedReader reads at most left bytes and records that the limit was
// reached.
type limitedReader struct {
	r        io.Reader
	left     int64
	exceeded bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.exceeded = true
		return 0, errors.New("decompressed size limit reached")
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// writeArchive writes files as a deterministic .tar.gz: entries sorted by
// path, no directory entries, every header the same but for name, size
// and mode (0644, or 0755 for executables), mtime fixed to mtime (whole
// seconds), owner 0:0 without names, and a gzip header without name or
// time. The same files and mtime always give the same bytes.
func writeArchive(w io.Writer, files []file, mtime time.Time) error {
	sorted := append([]file(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	mtime = mtime.UTC().Truncate(time.Second)
	for i, f := range sorted {
		if i > 0 && f.Path == sorted[i-1].Path {
			return fmt.Errorf("two files at %s", f.Path)
		}
		if reason := checkEntryName(f.Path); reason != "" {
			return fmt.Errorf("%s: %s", f.Path, reason)
		}
		mode := int64(0o644)
		if f.Exec {
			mode = 0o755
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.Path, Size: int64(len(f.Data)), Mode: mode, ModTime: mtime, Format: tar.FormatPAX}
		if len(f.Path) <= 100 {
			h.Format = tar.FormatUSTAR
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

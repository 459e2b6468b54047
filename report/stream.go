package report

import (
	"bufio"
	"io"

	"github.com/ryekit/rye/internal/atomicfile"
)

// Stream is a report written while its run goes on (Outputs.Open): the
// items of JSON outputs as they are handed over (Item), everything else
// when the run ends (Close), so that memory grows with the findings, not
// with the items. Text, GitHub and SARIF output list no items: they are
// written whole at Close. A file is written to a temporary file beside it
// and replaces it only when complete.
type Stream struct {
	o             Outputs
	tool, version string
	outs          []streamOut
	items         jsonEncoder // each item is encoded once for every output
}

// streamOut is one output of a stream.
type streamOut struct {
	out  Output
	d    *dest       // set once begun
	json *jsonStream // a JSON output begun
	// err is the first error writing the output: a file's is kept for
	// Close, which returns it where the output's turn comes.
	err error
}

// Open begins a report of tool (rye's version) on every output; nothing is
// written before the first item, so that a run that fails before it
// verifies anything writes only its failure (Fail).
func (o Outputs) Open(tool, version string) *Stream {
	s := &Stream{o: o, tool: tool, version: version}
	for _, out := range o.List {
		s.outs = append(s.outs, streamOut{out: out})
	}
	return s
}

// Begun reports whether anything of the run has been written: the first
// item began the JSON outputs.
func (s *Stream) Begun() bool {
	for _, so := range s.outs {
		if so.d != nil {
			return true
		}
	}
	return false
}

// begin opens a JSON output and writes its head.
func (s *Stream) begin(so *streamOut) error {
	d, err := s.o.open(so.out)
	if err != nil {
		return err
	}
	so.d, so.json = d, newJSONStream(d.bw)
	return so.json.head(s.tool, s.o.Paths.Root(), s.version)
}

// Item writes one item (a verdict: any JSON-encodable value, its path
// renamed as machine formats name it when it is relocatable) to every
// JSON output. An item that cannot be encoded, or an error writing
// standard output, is returned: the run should stop (and Fail). A file's
// error is returned by Close.
func (s *Stream) Item(v any) error {
	var val []byte
	var stop error
	for i := range s.outs {
		so := &s.outs[i]
		if so.out.Format != "json" || so.err != nil {
			continue
		}
		if val == nil {
			if val, stop = s.items.value(2, s.o.relocate(v)); stop != nil {
				so.err = stop
				continue
			}
		}
		if so.json == nil {
			so.err = s.begin(so)
		}
		if so.err == nil {
			so.err = so.json.item(val)
		}
		if so.err != nil && so.out.File == "" && stop == nil {
			stop = so.err
		}
	}
	return stop
}

// relocate is an item with its path as machine formats name it.
func (o Outputs) relocate(v any) any {
	if r, ok := v.(relocatable); ok && r.ItemPath() != "" {
		return r.WithPath(o.Paths.Map(r.ItemPath()))
	}
	return v
}

// Close ends the stream with the rest of rep (its findings, rules and
// notes; its items are those handed to Item, not rep.Items) on every
// output, in order: line is the one-line summary of text and GitHub
// output, summary the JSON summary object. Files replace their targets
// only now. The first output that cannot be written stops it: the later
// ones are not written.
func (s *Stream) Close(rep *Report, line string, summary any) error {
	var machine *Report
	for i := range s.outs {
		so := &s.outs[i]
		err := so.err
		if err == nil {
			r := rep
			if so.out.Format != "text" {
				if machine == nil {
					machine = rep.Relocated(s.o.Paths.Map, s.o.Paths.Root())
				}
				r = machine
			}
			shown := line
			if s.o.Quiet && (so.out.Format == "text" || so.out.Format == "github") {
				r, shown = r.WithoutWarnings(), ""
				r.Notes = nil
			}
			err = s.finish(so, r, shown, summary)
		}
		if err != nil {
			s.abort(i)
			return fileError(so.out, err)
		}
	}
	return nil
}

// finish writes the rest of one output and commits it.
func (s *Stream) finish(so *streamOut, r *Report, line string, summary any) error {
	if so.out.Format != "json" {
		d, err := s.o.open(so.out)
		if err != nil {
			return err
		}
		return d.finish(s.o.render(so.out, r, line, summary))
	}
	if so.json == nil {
		if err := s.begin(so); err != nil {
			so.d.abort()
			return err
		}
	}
	return so.d.finish(func(io.Writer) error { return so.json.tail(r, summary) })
}

// abort drops the files begun from output i on (one committed stays).
func (s *Stream) abort(i int) {
	for ; i < len(s.outs); i++ {
		s.outs[i].d.abort()
	}
}

// Fail ends a stream whose run stopped with an error (rep has its
// Failure) in the machine formats, as WriteFailure does: a JSON document
// begun on standard output is finished with its error (its items are
// those listed before the run stopped, summary null, the other lists
// empty); a file begun is dropped and replaced by the failure's document.
// It returns what it could not write.
func (s *Stream) Fail(rep *Report) []error {
	rep.Root = s.o.Paths.Root()
	var errs []error
	for i := range s.outs {
		so := &s.outs[i]
		if so.out.File == "" && so.json != nil {
			if so.err == nil {
				so.err = so.d.finish(func(io.Writer) error { return so.json.tail(rep, nil) })
			}
			if so.err != nil {
				errs = append(errs, so.err)
			}
			continue
		}
		so.d.abort()
		if so.out.Format == "text" {
			continue
		}
		if err := s.o.write(so.out, rep, "", nil); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Write writes rep, its items included, to every output (line is the
// one-line summary of text and GitHub output, summary the JSON summary
// object). Files are replaced atomically.
func (o Outputs) Write(rep *Report, line string, summary any) error {
	s := o.Open(rep.Tool, rep.Version)
	for _, it := range rep.Items {
		if err := s.Item(it.Value); err != nil {
			s.abort(0)
			return err
		}
	}
	return s.Close(rep, line, summary)
}

// dest is one output being written, buffered: standard output, or a file
// that replaces its target on commit.
type dest struct {
	file *atomicfile.File
	bw   *bufio.Writer
}

// open begins writing out.
func (o Outputs) open(out Output) (*dest, error) {
	if out.File == "" {
		return &dest{bw: bufio.NewWriterSize(o.Stdout, 64<<10)}, nil
	}
	f, err := atomicfile.Create(out.File, 0o644)
	if err != nil {
		return nil, &FileError{Output: out, Err: err}
	}
	return &dest{file: f, bw: bufio.NewWriterSize(f, 64<<10)}, nil
}

// finish writes the rest with write, flushes, and commits a file (or
// drops it when anything failed).
func (d *dest) finish(write func(io.Writer) error) error {
	err := write(d.bw)
	if err == nil {
		err = d.bw.Flush()
	}
	if d.file == nil {
		return err
	}
	if err != nil {
		d.file.Abort()
		return err
	}
	return d.file.Commit()
}

// abort drops a file begun (nil: nothing begun).
func (d *dest) abort() {
	if d != nil && d.file != nil {
		d.file.Abort()
	}
}

// fileError names the output of a file that could not be written.
func fileError(out Output, err error) error {
	if _, ok := err.(*FileError); ok || err == nil || out.File == "" {
		return err
	}
	return &FileError{Output: out, Err: err}
}

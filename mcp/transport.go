package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxMessage is the longest message (one line) the transport reads: the
// SDK's own limit.
const maxMessage = sdk.DefaultMaxLineLength

// transport is MCP's stdio transport over r and w: newline-delimited
// JSON-RPC messages, as the SDK's StdioTransport, with one difference. A
// line that is not a JSON-RPC message (not JSON, a batch, not a request,
// notification or response, longer than maxMessage) is answered with a
// JSON-RPC error, parse error or invalid request, and skipped, where the
// SDK's transport would end the session: a client's malformed message must
// not take the server down. Blank lines are skipped.
//
// Only what the server writes through the returned transport reaches w,
// one whole message per write.
func transport(r io.Reader, w io.Writer) sdk.Transport {
	lw := &lockedWriter{w: w}
	return &sdk.IOTransport{Reader: &lineFilter{src: r, r: bufio.NewReaderSize(r, 64<<10), w: lw}, Writer: lw}
}

// lockedWriter writes whole messages from the SDK's connection and from
// the filter's error replies without interleaving them.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves w open: it is the process's stdout, or the caller's.
func (l *lockedWriter) Close() error { return nil }

// lineFilter hands the SDK only lines that are JSON-RPC messages.
type lineFilter struct {
	src     io.Reader
	r       *bufio.Reader
	w       io.Writer
	pending []byte // a checked line, with its newline, not yet read
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, tooLong, err := f.readLine()
		if tooLong {
			if _, werr := f.w.Write(reply(nil, jsonrpc.CodeInvalidRequest, "message longer than 16 MiB")); werr != nil {
				return 0, werr
			}
		} else if len(line) > 0 {
			if answer := check(line); answer != nil {
				if _, werr := f.w.Write(answer); werr != nil {
					return 0, werr
				}
			} else if len(bytes.TrimSpace(line)) > 0 {
				f.pending = append(line, '\n')
			}
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads one line without its newline. The rest of a line longer
// than maxMessage is read and dropped, and tooLong says so.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > maxMessage+1 {
				tooLong, line = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

func (f *lineFilter) Close() error {
	if c, ok := f.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// check returns nil for a line that is a JSON-RPC message (or blank), and
// otherwise the error reply to send: -32700 for a line that is not JSON,
// -32600 for JSON that is not one message. The reply names the request's
// id when the line has a usable one.
func check(line []byte) []byte {
	s := bytes.TrimSpace(line)
	switch {
	case len(s) == 0:
		return nil
	case !json.Valid(s):
		return reply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON (one JSON-RPC message per line)")
	case s[0] == '[':
		return reply(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per line")
	case s[0] != '{':
		return reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is an object")
	}
	if _, err := jsonrpc.DecodeMessage(s); err != nil {
		var probe struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(s, &probe)
		return reply(probe.ID, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return nil
}

// reply is a JSON-RPC error response with its newline. An id that is not
// a string or a number is replaced by null.
func reply(id any, code int64, msg string) []byte {
	switch id.(type) {
	case string, float64:
	default:
		id = nil
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return append(b, '\n')
}

package testscripts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ryekit/rye/mcp"
)

// mcp [-raw] SCRIPT [FLAG...] starts `rye mcp FLAG...` as a subprocess, in
// the script's folder and environment, and talks to it through its stdin
// and stdout: real JSON-RPC over a pipe. Each line of SCRIPT ($VARS
// expanded) is one step, and each step prints one line on stdout:
//
//	call TOOL ARGS-JSON        a tools/call through the SDK's client; prints
//	                           "TOOL " and the result's text, or
//	                           "TOOL protocol error: ..."
//	cancel FILE TOOL ARGS-JSON the same call, cancelled by the client once
//	                           FILE exists; prints "TOOL cancelled"
//
// With -raw there is no SDK client: "send LINE" writes a line and reads
// nothing, "call LINE" writes a line and prints the server's next line.
//
// Afterwards the server's stdin is closed; it must exit with status 0,
// and every line it wrote on stdout must be a JSON-RPC message of at most
// mcp.MaxResponse bytes: nothing else may reach the protocol stream. Its stderr is the command's stderr.
func mcpSession(ts *testscript.TestScript, neg bool, args []string) {
	raw := len(args) > 0 && args[0] == "-raw"
	if raw {
		args = args[1:]
	}
	if neg || len(args) < 1 {
		ts.Fatalf("usage: mcp [-raw] SCRIPT [FLAG...]")
	}
	steps := strings.Split(ts.ReadFile(args[0]), "\n")
	rye, err := exec.LookPath("rye") // testscript.Main put it on PATH
	ts.Check(err)
	cmd := exec.Command(rye, append([]string{"mcp"}, args[1:]...)...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"HOME", "USER_SPACE", "XDG_CACHE_HOME", "NO_COLOR", "RYE_SYSTEM_PATH", "RYE_SIGNING_KEY", "RYE_KEY_PASSWORD", "SOURCE_DATE_EPOCH", "TMPDIR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stderr, wrote bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	out := io.TeeReader(stdout, &wrote)
	if raw {
		rawSteps(ts, steps, stdin, bufio.NewReader(out))
		stdin.Close()
	} else {
		sdkSteps(ts, steps, stdin, out)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			ts.Fatalf("rye mcp: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		ts.Fatalf("rye mcp did not exit when its stdin closed")
	}
	fmt.Fprint(ts.Stderr(), stderr.String())
	for _, line := range strings.Split(strings.TrimSuffix(wrote.String(), "\n"), "\n") {
		if len(line) > mcp.MaxResponse {
			ts.Fatalf("rye mcp wrote a message of %d bytes, more than mcp.MaxResponse (%d): a client may not read it", len(line), mcp.MaxResponse)
		}
		if err := jsonRPCMessage(line); err != nil && line != "" {
			ts.Fatalf("rye mcp wrote a line that is not a JSON-RPC message (%v): %q", err, line)
		}
	}
}

// step splits a script line into its verb and the rest, with $VARS
// expanded; ok is false for blank lines and comments.
func step(ts *testscript.TestScript, line string) (verb, rest string, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return "", "", false
	}
	verb, rest, _ = strings.Cut(os.Expand(line, ts.Getenv), " ")
	return verb, rest, true
}

func sdkSteps(ts *testscript.TestScript, steps []string, stdin io.WriteCloser, stdout io.Reader) {
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "testscript", Version: "1"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: io.NopCloser(stdout), Writer: stdin}, nil)
	ts.Check(err)
	for _, line := range steps {
		verb, rest, ok := step(ts, line)
		if !ok {
			continue
		}
		var file string
		if verb == "cancel" {
			file, rest, _ = strings.Cut(rest, " ")
		} else if verb != "call" {
			ts.Fatalf("mcp: unknown step %q", verb)
		}
		tool, argsJSON, _ := strings.Cut(rest, " ")
		var params map[string]any
		ts.Check(json.Unmarshal([]byte(argsJSON), &params))
		callCtx, cancel := context.WithCancel(ctx)
		type outcome struct {
			res *sdk.CallToolResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: tool, Arguments: params})
			done <- outcome{res, err}
		}()
		if file != "" {
			waitFile(ts, ts.MkAbs(file))
			cancel()
		}
		o := <-done
		cancel()
		switch {
		case file != "" && errors.Is(o.err, context.Canceled):
			fmt.Fprintf(ts.Stdout(), "%s cancelled\n", tool)
		case o.err != nil:
			fmt.Fprintf(ts.Stdout(), "%s protocol error: %v\n", tool, o.err)
		default:
			var texts []string
			for _, c := range o.res.Content {
				if t, ok := c.(*sdk.TextContent); ok {
					texts = append(texts, t.Text)
				}
			}
			fmt.Fprintf(ts.Stdout(), "%s %s\n", tool, strings.Join(texts, " "))
		}
	}
	ts.Check(cs.Close())
}

func rawSteps(ts *testscript.TestScript, steps []string, stdin io.Writer, stdout *bufio.Reader) {
	for _, line := range steps {
		verb, rest, ok := step(ts, line)
		if !ok {
			continue
		}
		if verb != "send" && verb != "call" {
			ts.Fatalf("mcp -raw: unknown step %q", verb)
		}
		_, err := io.WriteString(stdin, rest+"\n")
		ts.Check(err)
		if verb == "call" {
			answer, err := stdout.ReadString('\n')
			if err != nil {
				ts.Fatalf("mcp -raw: no answer to %s: %v", rest, err)
			}
			fmt.Fprint(ts.Stdout(), answer)
		}
	}
}

// waitFile waits (up to 20 s) until a file exists and is not empty.
func waitFile(ts *testscript.TestScript, path string) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		if info, err := os.Stat(path); err == nil && info.Size() > 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s never appeared", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jsonRPCMessage checks that line is one JSON-RPC 2.0 message: a request
// or notification, or a response with an id and a result or an error.
func jsonRPCMessage(line string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return err
	}
	_, method := m["method"]
	_, id := m["id"]
	_, result := m["result"]
	_, rpcErr := m["error"]
	switch {
	case string(m["jsonrpc"]) != `"2.0"`:
		return errors.New(`no "jsonrpc": "2.0"`)
	case method, id && result != rpcErr:
		return nil
	}
	return errors.New("neither a request nor a response")
}

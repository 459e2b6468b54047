package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ryekit/rye/cmd/rye/cli"
)

// mcpOverhead times round trips to `rye mcp` (the binary built from this
// tree, a subprocess on stdio, called through the SDK's client) on a copy
// of examples/hello: a search and an execute of hello/count_lines, each
// against the same verb run in-process (cli.Main, output discarded). The
// difference of the medians is what the protocol adds to a call: the
// JSON-RPC encoding both ways, the pipe, and the server's own work.
func mcpOverhead(root string, runs int, goEnv []string) {
	bin := buildRye(root, goEnv)
	project := filepath.Join(root, "hello")
	check(os.CopyFS(project, os.DirFS(filepath.Join("..", "..", "examples", "hello"))))

	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "ryebench", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, "mcp")}, nil)
	check(err)
	defer cs.Close()
	call := func(tool string, args map[string]any) func() {
		return func() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
			check(err)
			if res.IsError {
				check(fmt.Errorf("%s: %v", tool, res.Content[0].(*sdk.TextContent).Text))
			}
		}
	}
	inProcess := func(args ...string) func() {
		return func() {
			check(quiet(cli.Main(append([]string{"-C", project}, args...), strings.NewReader(""), io.Discard, io.Discard)))
		}
	}
	type pair struct {
		name       string
		mcp, local func()
	}
	pairs := []pair{
		{"search all greet", call("search", map[string]any{"scope": "all", "query": "greet", "project_path": project}), inProcess("search", "all", "greet")},
		{"execute tool hello/count_lines", call("execute", map[string]any{"item_type": "tool", "item_id": "hello/count_lines", "project_path": project,
			"parameters": map[string]any{"file": ".ai/tools/hello/greet.py"}}), inProcess("execute", "tool", "hello/count_lines", ".ai/tools/hello/greet.py")},
	}
	fmt.Printf("rye mcp on stdio vs the same verb in-process, examples/hello, %d runs each (medians)\n\n", runs)
	for _, p := range pairs {
		p.mcp() // warm: the search index cache, the lockfile
		p.local()
		// Interleaved, so that a slow moment of the machine hits both.
		var viaMCP, local []time.Duration
		for i := 0; i < runs; i++ {
			viaMCP = append(viaMCP, median(1, p.mcp))
			local = append(local, median(1, p.local))
		}
		m, l := middle(viaMCP), middle(local)
		fmt.Printf("%-32s  mcp round trip %8s  in-process %8s  added by mcp %8s\n", p.name, round(m), round(l), round(m-l))
	}
}

// middle is the median of ts.
func middle(ts []time.Duration) time.Duration {
	slices.Sort(ts)
	return ts[len(ts)/2]
}

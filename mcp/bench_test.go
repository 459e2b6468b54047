package mcp

import (
	"context"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ryekit/rye/internal/cleancopy"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/search"
)

// benchProject is a copy of examples/hello, with a fixture for its user
// space and cache.
func benchProject(b *testing.B) (*fixture, string) {
	f := &fixture{project: b.TempDir(), user: b.TempDir()}
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	project := filepath.Join(f.project, "hello")
	if err := cleancopy.Copy(project, filepath.Join("..", "examples", "hello")); err != nil {
		b.Fatal(err)
	}
	return f, project
}

// BenchmarkSearchCall is one search call through the SDK's client and
// server over an in-memory transport: the protocol's cost without the
// pipe. BenchmarkSearchRequest is the request function alone.
func BenchmarkSearchCall(b *testing.B) {
	f, project := benchProject(b)
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	go NewServer(Options{Getenv: f.getenv}).Run(ctx, st)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"scope": "all", "query": "greet", "project_path": project}
	for b.Loop() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

func BenchmarkSearchRequest(b *testing.B) {
	f, root := benchProject(b)
	cache := b.TempDir()
	for b.Loop() {
		p, err := project.Open(root, project.Options{Root: root, Getenv: f.getenv})
		if err != nil {
			b.Fatal(err)
		}
		x, err := p.Spaces.Extractors()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := search.Run(search.Request{Spaces: p.Spaces, Scope: "all", Query: "greet", Limit: 10, CacheDir: cache, Secret: []byte("0123456789abcdef0123456789abcdef"), Extractors: x, Trust: p.Trust, Policy: p.Policy}); err != nil {
			b.Fatal(err)
		}
	}
}

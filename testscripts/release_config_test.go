package testscripts

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml that the install
// script, the cross-build and rye itself depend on.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		IDs             []string `yaml:"ids"`
		NameTemplate    string   `yaml:"name_template"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Signs []struct {
		Artifacts string   `yaml:"artifacts"`
		Cmd       string   `yaml:"cmd"`
		Args      []string `yaml:"args"`
		Signature string   `yaml:"signature"`
	} `yaml:"signs"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// The release configuration makes what the install script downloads and
// what rye version verify and ssh-keygen check: every binary for the six
// platforms, with rye's version, commit and date set at link time;
// archives named rye_<version>_<os>_<arch>.tar.gz (.zip on Windows) that
// hold every binary; a SHA-256 checksums file signed with ssh-keygen in
// the rye-release namespace. .ci/cross-build builds the same platforms.
// (goreleaser check validates the rest: docs/releasing.md.)
func TestReleaseConfig(t *testing.T) {
	var c goreleaserConfig
	readYAML(t, ".goreleaser.yaml", &c)
	if c.Version != 2 {
		t.Errorf("version %d: the configuration is GoReleaser v2's", c.Version)
	}
	var platforms []string
	for _, os := range []string{"linux", "darwin", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			platforms = append(platforms, os+"/"+arch)
		}
	}
	vars := packageVars(t, "../cmd/rye/cli/version.go")
	if len(c.Builds) == 0 || c.Builds[0].ID != "rye" || c.Builds[0].Main != "./cmd/rye" || c.Builds[0].Binary != "rye" {
		t.Fatalf("the first build is not rye: %+v", c.Builds)
	}
	for _, b := range c.Builds {
		var got []string
		for _, os := range b.Goos {
			for _, arch := range b.Goarch {
				got = append(got, os+"/"+arch)
			}
		}
		if !slices.Equal(got, platforms) {
			t.Errorf("build %s: platforms %v, want %v", b.ID, got, platforms)
		}
		if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
			t.Errorf("build %s: env %v, flags %v: the release builds with CGO_ENABLED=0 and -trimpath (as .ci/cross-build does)", b.ID, b.Env, b.Flags)
		}
		if b.ID != "rye" {
			continue
		}
		ld := strings.Join(b.Ldflags, " ")
		for _, v := range []string{"version=v{{ .Version }}", "commit={{ .FullCommit }}", "date={{ .CommitDate }}"} {
			name, _, _ := strings.Cut(v, "=")
			if !strings.Contains(ld, "-X github.com/ryekit/rye/cmd/rye/cli."+v) {
				t.Errorf("ldflags %q do not set cli.%s", ld, v)
			}
			if !vars[name] {
				t.Errorf("cmd/rye/cli/version.go has no package variable %s for -X to set", name)
			}
		}
	}
	if len(c.Archives) != 1 {
		t.Fatalf("%d archive blocks, want one that holds every binary", len(c.Archives))
	}
	a := c.Archives[0]
	if len(a.IDs) != 0 {
		t.Errorf("the archive takes builds %v: without ids it takes every build, which a second binary needs", a.IDs)
	}
	if a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" || !slices.Equal(a.Formats, []string{"tar.gz"}) ||
		len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" || !slices.Equal(a.FormatOverrides[0].Formats, []string{"zip"}) {
		t.Errorf("archives %+v: action/install.sh downloads rye_<version>_<os>_<arch>.tar.gz, .zip on Windows", a)
	}
	if c.Checksum.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_checksums.txt" || c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v: action/install.sh and the docs expect rye_<version>_checksums.txt, SHA-256", c.Checksum)
	}
	if len(c.Signs) != 1 || c.Signs[0].Artifacts != "checksum" || c.Signs[0].Cmd != "ssh-keygen" || c.Signs[0].Signature != "${artifact}.sig" ||
		!strings.Contains(strings.Join(c.Signs[0].Args, " "), "-Y sign -q -n rye-release ") {
		t.Errorf("signs %+v: the checksums file is signed with ssh-keygen -Y sign -n rye-release into <file>.sig", c.Signs)
	}

	// .ci/cross-build builds the same platforms.
	script, err := os.ReadFile("../.ci/cross-build")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^targets="([^"]*)"$`).FindSubmatch(script)
	if m == nil || !slices.Equal(strings.Fields(string(m[1])), platforms) {
		t.Errorf(".ci/cross-build targets %q, want %v", m, platforms)
	}
}

// packageVars lists the package-level variables of a Go file.
func packageVars(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					vars[n.Name] = true
				}
			}
		}
	}
	return vars
}

// Package config reads rye's configuration files (spec 4.4):
// .ai/config/rye.yaml in the project and <user space>/.ai/config/rye.yaml.
// Unknown keys are an error, because a misspelt key must never silently
// turn a check off.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Path is where the configuration lives below a space root.
const Path = ".ai/config/rye.yaml"

// Config is the merged configuration. Zero values mean "not set".
type Config struct {
	// MinSignatureVersion is 1 or 2; 2 turns v1 signatures into failures.
	MinSignatureVersion int    `yaml:"min_signature_version"`
	Lint                Lint   `yaml:"lint"`
	Sign                Sign   `yaml:"sign"`
	Verify              Verify `yaml:"verify"`
}

// Lint configures rye lint.
type Lint struct {
	Enable   []string          `yaml:"enable"`
	Disable  []string          `yaml:"disable"`
	Severity map[string]string `yaml:"severity"` // analyzer → error|warning|info|off
}

// Sign configures rye sign.
type Sign struct {
	Format string `yaml:"format"` // v1 or v2
}

// Verify configures rye verify.
type Verify struct {
	TrustRef string `yaml:"trust_ref"`
}

// Default is the file rye init writes.
const Default = `# rye configuration (see the README, "Configuration"). Unknown keys are an error.

# 1 accepts the reference implementation's v1 signatures (with a lint warning);
# 2 makes them fail verification.
min_signature_version: 1

sign:
  format: v2          # v2 (rye's own) or v1 (readable by the Python reference)

verify:
  trust_ref: ""       # a git ref whose .ai/trusted_keys/ is trusted (CI: the base branch)

lint:
  enable: []
  disable: []
  severity: {}        # analyzer: error | warning | info | off
`

// Parse reads one configuration file; name is used in messages.
func Parse(name string, data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

func (c *Config) check() error {
	switch c.MinSignatureVersion {
	case 0, 1, 2:
	default:
		return fmt.Errorf("min_signature_version: %d is not 1 or 2", c.MinSignatureVersion)
	}
	switch c.Sign.Format {
	case "", "v1", "v2":
	default:
		return fmt.Errorf("sign.format: %q is not v1 or v2", c.Sign.Format)
	}
	// lint.severity names analyzers, which only package lint knows: lint.Lint
	// checks the names and the values, once, where they are used.
	return nil
}

// Load reads the user's and then the project's configuration (either root
// may be ""); project values override user values. Missing files are fine.
func Load(userRoot, projectRoot string) (*Config, error) {
	merged := &Config{}
	for _, root := range []string{userRoot, projectRoot} {
		if root == "" {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(Path))
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		merged.merge(c)
	}
	return merged, nil
}

func (c *Config) merge(o *Config) {
	if o.MinSignatureVersion != 0 {
		c.MinSignatureVersion = o.MinSignatureVersion
	}
	if o.Sign.Format != "" {
		c.Sign.Format = o.Sign.Format
	}
	if o.Verify.TrustRef != "" {
		c.Verify.TrustRef = o.Verify.TrustRef
	}
	c.Lint.Enable = append(c.Lint.Enable, o.Lint.Enable...)
	c.Lint.Disable = append(c.Lint.Disable, o.Lint.Disable...)
	for k, v := range o.Lint.Severity {
		if c.Lint.Severity == nil {
			c.Lint.Severity = map[string]string{}
		}
		c.Lint.Severity[k] = v
	}
}

package params

import (
	"reflect"
	"testing"
	"time"
)

// rye's own flags come out of a tool's arguments; everything else, and
// everything after "--", stays the tool's; --timeout is the tool's when it
// declares one.
func TestOwnSplit(t *testing.T) {
	var o Own
	rest, err := o.Split([]string{"--name", "Ada", "--dry-run", "--params={}", "--timeout", "3s", "-h", "--", "--dry-run"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--name", "Ada", "--", "--dry-run"}; !reflect.DeepEqual(rest, want) {
		t.Errorf("tool args %q, want %q", rest, want)
	}
	if !o.DryRun || !o.Help || o.Params != "{}" || o.Timeout != 3*time.Second {
		t.Errorf("own flags %+v", o)
	}
	o = Own{}
	if rest, err := o.Split([]string{"--timeout", "3s"}, true); err != nil || o.Timeout != 0 || len(rest) != 2 {
		t.Errorf("a tool's own --timeout: %q %v %+v", rest, err, o)
	}
	for _, bad := range [][]string{{"--params"}, {"--params", "{}", "--params", "{}"}, {"--timeout", "-1s"}, {"--timeout=soon"}} {
		var o Own
		if _, err := o.Split(bad, false); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if !WantsHelp([]string{"x", "--help"}) || WantsHelp([]string{"--", "-h"}) {
		t.Error("WantsHelp")
	}
}

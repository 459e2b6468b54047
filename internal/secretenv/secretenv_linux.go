package secretenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Scrub overwrites with NUL bytes the values of the named variables in
// the process's initial environment block and makes the process
// non-dumpable. A variable that is not in the block needs nothing; an
// error means a secret is still readable there.
func Scrub(names ...string) error {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	present := false
	for _, n := range names {
		if _, ok := os.LookupEnv(n); ok {
			present = true
		}
	}
	if !present {
		return nil // Go's environment started from the block: nothing to do
	}
	start, end, err := envBounds()
	if err != nil {
		return err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, int64(start)); err != nil {
		return fmt.Errorf("reading the environment block: %v", err)
	}
	changed := scrubBlock(block, names)
	if !changed {
		return nil
	}
	if _, err := mem.WriteAt(block, int64(start)); err != nil {
		return fmt.Errorf("overwriting the environment block: %v", err)
	}
	check := make([]byte, len(block))
	if _, err := mem.ReadAt(check, int64(start)); err != nil || !bytes.Equal(check, block) {
		return errors.New("the environment block did not change")
	}
	return nil
}

// envBounds reads env_start and env_end (proc(5)'s fields 50 and 51)
// from /proc/self/stat.
func envBounds() (uint64, uint64, error) {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name is in parentheses and may hold anything: count
	// fields after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, errors.New("/proc/self/stat: no command name")
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is proc(5)'s field 3 (state): field n is fields[n-3].
	if len(fields) < 51-3+1 {
		return 0, 0, errors.New("/proc/self/stat: no env_start and env_end (Linux 3.5 or newer)")
	}
	start, err1 := strconv.ParseUint(fields[50-3], 10, 64)
	end, err2 := strconv.ParseUint(fields[51-3], 10, 64)
	if err1 != nil || err2 != nil || end < start || end-start > 1<<26 {
		return 0, 0, fmt.Errorf("/proc/self/stat: bad env_start %q, env_end %q", fields[50-3], fields[51-3])
	}
	return start, end, nil
}

package tty

import (
	"bytes"
	"strconv"
	"testing"
	"time"
)

// The line shows after the delay, at most ten times a second, and erases
// itself at the end; a quick walk prints nothing.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(0, 0)
	count := strconv.Itoa
	p := NewProgress(&b, "verifying", time.Second, func() time.Time { return now }, count)
	p.Update(1, 5000)
	now = now.Add(900 * time.Millisecond)
	p.Update(2, 5000)
	if b.Len() != 0 {
		t.Fatalf("drawn before a second: %q", b.String())
	}
	now = now.Add(200 * time.Millisecond)
	p.Update(1234, 5000)
	now = now.Add(50 * time.Millisecond)
	p.Update(1300, 5000) // too soon after the last draw
	now = now.Add(100 * time.Millisecond)
	p.Update(2000, 5000)
	p.Update(5000, 5000)
	want := "\r\x1b[Kverifying 1234/5000\r\x1b[Kverifying 2000/5000\r\x1b[K"
	if b.String() != want {
		t.Errorf("%q\nwant %q", b.String(), want)
	}
	b.Reset()
	quick := NewProgress(&b, "signing", time.Second, time.Now, count)
	quick.Update(1, 2)
	quick.Update(2, 2)
	if b.Len() != 0 {
		t.Errorf("a quick walk printed %q", b.String())
	}
	if IsTerminal(&b) {
		t.Error("a buffer is a terminal")
	}
}

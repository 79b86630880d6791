// Package console serializes what a command writes to standard error:
// warnings, of which only the first MaxWarnings are printed (all of them
// with ShowAll), a progress line, which every other line clears first,
// and messages. A Console may be used from several goroutines.
package console

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// MaxWarnings is how many warnings a Console prints before it only counts
// them.
const MaxWarnings = 20

// Console writes the warnings, progress and messages of the command cmd
// to w.
type Console struct {
	mu    sync.Mutex
	w     io.Writer
	cmd   string
	n     int  // warnings so far
	all   bool // print every warning (--verbose)
	shown int  // length of the progress line on screen, 0 if none
}

// New returns a Console writing to w; its warnings start with "simidx cmd:".
func New(w io.Writer, cmd string) *Console {
	return &Console{w: w, cmd: cmd}
}

// Cmd returns the name of the command the Console writes for.
func (c *Console) Cmd() string { return c.cmd }

// ShowAll makes the Console print every warning, not only the first
// MaxWarnings.
func (c *Console) ShowAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all = true
}

func (c *Console) clearLocked() {
	if c.shown > 0 {
		fmt.Fprintf(c.w, "\r%*s\r", c.shown, "")
		c.shown = 0
	}
}

// Warnf prints a warning: "simidx CMD: " and the message. Past
// MaxWarnings it prints one line saying the rest are only counted, then
// nothing.
func (c *Console) Warnf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	switch {
	case c.n <= MaxWarnings || c.all:
		c.clearLocked()
		fmt.Fprintf(c.w, "simidx %s: %s\n", c.cmd, fmt.Sprintf(format, args...))
	case c.n == MaxWarnings+1:
		c.clearLocked()
		fmt.Fprintf(c.w, "simidx %s: more problems; only counting them from now on\n", c.cmd)
	}
}

// Messagef prints a line as it is formatted.
func (c *Console) Messagef(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	fmt.Fprintf(c.w, format+"\n", args...)
}

// Progress replaces the progress line with line.
func (c *Console) Progress(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pad := max(c.shown-len(line), 0)
	fmt.Fprintf(c.w, "\r%s%*s", line, pad, "")
	c.shown = len(line)
	if pad > 0 {
		fmt.Fprintf(c.w, "\r%s", line)
	}
}

// StartProgress draws the progress line that line returns at most ten
// times a second, on a goroutine of its own, until the function it
// returns is called, which removes the line.
func (c *Console) StartProgress(line func() string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				c.Clear()
				return
			case <-t.C:
				c.Progress(line())
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// Clear removes the progress line.
func (c *Console) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
}

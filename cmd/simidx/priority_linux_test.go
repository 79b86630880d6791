package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestApplierThreadPriority checks, in a real server process, that the
// background commits run on a thread of lower priority (nice 10) while
// the other threads keep the process's priority.
func TestApplierThreadPriority(t *testing.T) {
	db := filepath.Join(t.TempDir(), "nice.db")
	bs := startBinary(t, db)
	defer func() {
		bs.cmd.Process.Signal(syscall.SIGTERM)
		bs.wait(t)
	}()
	pid := strconv.Itoa(bs.cmd.Process.Pid)
	nice := func(task string) (string, bool) {
		b, err := os.ReadFile(filepath.Join("/proc", pid, "task", task, "stat"))
		if err != nil {
			return "", false // the thread ended
		}
		// The fields after the command name, which ends with ')': the
		// state is field 3 of stat, the nice value field 19.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) < 17 {
			t.Fatalf("short stat of thread %s: %q", task, b)
		}
		return fields[16], true
	}
	base, ok := nice(pid)
	if !ok {
		t.Fatal("no main thread")
	}
	if n, _ := strconv.Atoi(base); n >= 10 {
		t.Skipf("the server runs at nice %s already", base)
	}
	niced, others := 0, 0
	deadline := time.Now().Add(5 * time.Second)
	for niced == 0 && time.Now().Before(deadline) {
		niced, others = 0, 0
		tasks, err := os.ReadDir(filepath.Join("/proc", pid, "task"))
		if err != nil || len(tasks) == 0 {
			t.Fatalf("threads of the server: %v", err)
		}
		for _, task := range tasks {
			switch n, ok := nice(task.Name()); {
			case !ok:
			case n == "10":
				niced++
			case n == base:
				others++
			default:
				t.Errorf("thread %s at nice %s, the process at %s", task.Name(), n, base)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if niced != 1 || others == 0 {
		t.Errorf("%d threads at nice 10, %d at 0; want the applier's alone at 10", niced, others)
	}
}

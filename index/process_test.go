package index_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// Tests that need a second process re-execute the test binary with
// SIMIDX_TEST_CHILD set; TestMain then runs the child's part instead of
// the tests.
func TestMain(m *testing.M) {
	if role := os.Getenv("SIMIDX_TEST_CHILD"); role != "" {
		if err := child(role, os.Getenv("SIMIDX_TEST_PATH")); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childText is the text the crash test gives document i when it loads
// text (into an index with a set method).
func childText(i int) []byte {
	return []byte(fmt.Sprintf("Report %d of the day. The committee of district %d met and agreed on item %d.", i, i%1000, i%7))
}

func child(role, path string) error {
	switch role {
	case "load": // load until killed, reporting progress
		x, err := index.Open(path, nil)
		if err != nil {
			return err
		}
		batch, _ := strconv.Atoi(os.Getenv("SIMIDX_TEST_BATCH"))
		total, _ := strconv.Atoi(os.Getenv("SIMIDX_TEST_TOTAL"))
		text := os.Getenv("SIMIDX_TEST_TEXT") != ""
		src := func(yield func(index.Doc, error) bool) {
			for i := 0; total == 0 || i < total; i++ {
				d := index.Doc{ID: "c" + strconv.Itoa(i), Fingerprint: childFP(i), Precomputed: true}
				if text {
					d = index.Doc{ID: d.ID, Text: childText(i)}
				}
				if !yield(d, nil) {
					return
				}
			}
		}
		_, err = x.Load(context.Background(), src, &index.LoadOptions{
			BatchSize: batch,
			Progress:  func(s index.LoadStats) { fmt.Printf("progress %d %d\n", s.Docs, s.Committed) },
		})
		fmt.Println("done")
		return err
	case "open": // try to open for writing, report how it went
		t := time.Now()
		x, err := index.Open(path, nil)
		if err == nil {
			x.Close()
		}
		fmt.Printf("open %v %v %v\n", errors.Is(err, index.ErrLocked), time.Since(t).Milliseconds(), err)
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}

func childCmd(t *testing.T, role, path string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "SIMIDX_TEST_CHILD="+role, "SIMIDX_TEST_PATH="+path)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestCrashDuringLoad kills a loading process with SIGKILL and checks that
// the index opens, passes Check and holds every document completely or not
// at all: in a bulk load into an empty index and in batches into a
// non-empty one, and in a bulk load of texts into an nshash index (whose
// uncommitted set postings must go). The loads are a quarter of their
// size unless SIMIDX_STRESS is set (as .ci/run sets it).
func TestCrashDuringLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	scale := 4
	if os.Getenv("SIMIDX_STRESS") != "" {
		scale = 1
	}
	for _, tc := range []struct {
		name       string
		prefill    int
		batch      int
		total      int
		killAfter  int64
		bulkTarget bool
		method     index.Method
	}{
		{name: "bulk", total: 400_000 / scale, killAfter: 120_000 / int64(scale), bulkTarget: true},
		{name: "bulk-late", total: 400_000 / scale, killAfter: 393_216 / int64(scale), bulkTarget: true},
		{name: "batches", prefill: 10, batch: 1000, killAfter: 30_000},
		{name: "bulk-nshash", total: 120_000 / scale, killAfter: 65_000 / int64(scale), bulkTarget: true, method: index.MethodNshash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "crash.simidx")
			var opts *index.Options
			var env []string
			want := childFP
			if tc.method != "" {
				s := &index.Settings{Text: index.TextSettings{Method: tc.method}}
				opts = &index.Options{Settings: s}
				env = append(env, "SIMIDX_TEST_TEXT=1")
				f, err := index.NewFingerprinter(s)
				if err != nil {
					t.Fatal(err)
				}
				want = func(i int) uint64 { return f.Sum64(childText(i)) }
			}
			x, err := index.Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.prefill {
				if err := x.AddFingerprint("pre"+strconv.Itoa(i), uint64(i)); err != nil {
					t.Fatal(err)
				}
			}
			x.Close()
			cmd := childCmd(t, "load", path, append(env, "SIMIDX_TEST_BATCH="+strconv.Itoa(tc.batch), "SIMIDX_TEST_TOTAL="+strconv.Itoa(tc.total))...)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			killed := false
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 3 && f[0] == "progress" {
					if n, _ := strconv.ParseInt(f[1], 10, 64); n >= tc.killAfter {
						cmd.Process.Signal(syscall.SIGKILL)
						killed = true
						break
					}
				}
			}
			cmd.Wait()
			if !killed {
				t.Fatal("the child finished before it was killed")
			}

			// A read-only open first (no recovery), then a writable one.
			for _, ro := range []bool{true, false} {
				x, err := index.Open(path, &index.Options{ReadOnly: ro})
				if err != nil {
					t.Fatalf("open after crash (read-only %v): %v", ro, err)
				}
				if err := x.Check(); err != nil {
					t.Fatalf("check after crash (read-only %v): %v", ro, err)
				}
				n := x.Len()
				present := 0
				for i := 0; i < tc.total || (tc.total == 0 && i < int(tc.killAfter)*4); i++ {
					id := "c" + strconv.Itoa(i)
					fp, err := x.Fingerprint(id)
					if errors.Is(err, index.ErrNotFound) {
						continue
					}
					if err != nil || fp != want(i) {
						t.Fatalf("%s: fingerprint %x, %v; want %x", id, fp, err, want(i))
					}
					present++
				}
				if ro { // spot-check that present documents are found by query
					for i := 0; i < 2000 && present > 0; i += 97 {
						ms, err := x.QueryFingerprint(want(i), &index.QueryOptions{MaxDistance: index.ZeroDistance})
						if err != nil {
							t.Fatal(err)
						}
						if _, err := x.Get("c" + strconv.Itoa(i)); err == nil && (len(ms) == 0 || ms[0].ID != "c"+strconv.Itoa(i)) {
							t.Fatalf("c%d present but not found: %v", i, ms)
						}
					}
				}
				if n != present+tc.prefill {
					t.Fatalf("Len %d, %d documents present + %d prefilled", n, present, tc.prefill)
				}
				if tc.bulkTarget && present != 0 && present != tc.total {
					t.Fatalf("bulk load: %d of %d documents visible", present, tc.total)
				}
				if !tc.bulkTarget && present%tc.batch != 0 {
					t.Fatalf("%d documents present, not whole batches of %d", present, tc.batch)
				}
				if tc.method != "" && !ro {
					// The set postings work after the recovery.
					if err := x.Add(index.Doc{ID: "after", Text: childText(1)}); err != nil {
						t.Fatal(err)
					}
					ms, err := x.Query(childText(1), nil)
					if err != nil || len(ms) < 1 {
						t.Fatalf("query after the crash: %v, %v", ms, err)
					}
					if st, err := x.Stats(); err != nil || (present == 0 && st.SetHashes != 2) {
						t.Fatalf("stats after the crash: %+v, %v", st, err)
					}
					if err := x.Check(); err != nil {
						t.Fatal(err)
					}
				}
				t.Logf("read-only %v: %d documents present after the crash", ro, present)
				x.Close()
			}
		})
	}
}

// TestLockedByOtherProcess checks that a second process cannot open an
// index that is open for writing, and fails within about a second.
func TestLockedByOtherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	path := filepath.Join(t.TempDir(), "locked.simidx")
	x, err := index.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	start := time.Now()
	out, err := childCmd(t, "open", path).Output()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	f := strings.Fields(string(out))
	if len(f) < 3 || f[0] != "open" || f[1] != "true" {
		t.Fatalf("child: %s", out)
	}
	if !strings.Contains(string(out), "in use by another process") {
		t.Fatalf("error does not say the index is in use: %s", out)
	}
	if ms, _ := strconv.Atoi(f[2]); ms < 900 || ms > 2000 || time.Since(start) > 10*time.Second {
		t.Fatalf("child waited %d ms for the lock", ms)
	}
}

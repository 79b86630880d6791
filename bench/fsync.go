package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

func init() { commands["fsync"] = fsyncMain }

// fsyncConfig says what runFsync measures.
type fsyncConfig struct {
	Dir      string
	Record   int           // bytes appended before each fdatasync
	Busy     int           // CPU-bound threads running alongside
	Duration time.Duration // length of the probe
}

// fsyncMain is the fsync subcommand: a probe of the disk and the scheduler
// under the journal of simidx serve. It appends a record to a file and
// fdatasyncs it, in a loop, and reports the latencies of the pairs, with
// optional CPU-bound threads alongside to show what saturated cores add.
func fsyncMain(args []string) error {
	fs := flag.NewFlagSet("fsync", flag.ExitOnError)
	var c fsyncConfig
	fs.StringVar(&c.Dir, "dir", "", "directory for the probe's file (default a temporary one)")
	fs.IntVar(&c.Record, "record", 700, "bytes appended before each fdatasync")
	fs.IntVar(&c.Busy, "busy", 0, "CPU-bound threads running alongside")
	fs.DurationVar(&c.Duration, "duration", 8*time.Second, "length of the probe")
	fs.Parse(args)
	if c.Record <= 0 || c.Busy < 0 || c.Duration <= 0 {
		return errors.New("-record and -duration must be positive, -busy not negative")
	}
	return runFsync(c, os.Stdout)
}

func runFsync(c fsyncConfig, w io.Writer) error {
	f, err := os.CreateTemp(c.Dir, "simidx-fsync-probe")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	head := machine()
	// Each busy thread holds a P of its own and the probe keeps one, so
	// that the contention is for the CPUs, in the kernel's scheduler.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.Busy + 1))
	var stop atomic.Bool
	for range c.Busy {
		go func() {
			runtime.LockOSThread()
			for x := uint64(1); !stop.Load(); x = x*6364136223846793005 + 1 {
			}
		}()
	}
	defer stop.Store(true)
	rec := make([]byte, c.Record)
	var ds []time.Duration
	var off int64
	for end := time.Now().Add(c.Duration); time.Now().Before(end); {
		t := time.Now()
		if _, err := f.WriteAt(rec, off); err != nil {
			return err
		}
		if err := fdatasync(f); err != nil {
			return err
		}
		ds = append(ds, time.Since(t))
		off += int64(len(rec))
	}
	slices.Sort(ds)
	q := func(x float64) time.Duration {
		return ds[min(int(x*float64(len(ds))), len(ds)-1)].Round(time.Microsecond)
	}
	fmt.Fprintf(w, "machine: %s\n", head)
	fmt.Fprintf(w, "%d appends of %d bytes, each followed by an fdatasync, with %d busy threads alongside\n", len(ds), c.Record, c.Busy)
	fmt.Fprintf(w, "p50 %v  p90 %v  p99 %v  p99.9 %v  max %v\n", q(0.5), q(0.9), q(0.99), q(0.999), ds[len(ds)-1].Round(time.Microsecond))
	return nil
}

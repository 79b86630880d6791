package main

import (
	"bytes"
	"regexp"
	"strconv"
	"sync"
	"testing"
)

// TestSchedLatencies checks the histogram of the Go scheduler's latencies
// in the Prometheus text format: a bucket for each bound, in order, with
// counts that never fall, the +Inf bucket equal to the count, and some
// latencies counted after goroutines have waited for one another.
func TestSchedLatencies(t *testing.T) {
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			x := 0
			for i := range 100000 {
				x += i
			}
			_ = x
		})
	}
	wg.Wait()
	var b bytes.Buffer
	writeSchedLatencies(&b)
	re := regexp.MustCompile(`(?m)^go_sched_latencies_seconds_bucket\{le="([^"]+)"\} (\d+)$`)
	ms := re.FindAllStringSubmatch(b.String(), -1)
	if len(ms) != len(schedBuckets)+1 {
		t.Fatalf("%d buckets, want %d:\n%s", len(ms), len(schedBuckets)+1, b.String())
	}
	prev := int64(-1)
	for i, m := range ms {
		want := "+Inf"
		if i < len(schedBuckets) {
			want = strconv.FormatFloat(schedBuckets[i], 'g', -1, 64)
		}
		if m[1] != want {
			t.Errorf("bucket %d has le=%q, want %q", i, m[1], want)
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if n < prev {
			t.Errorf("bucket le=%s counts %d, less than the bucket before (%d)", m[1], n, prev)
		}
		prev = n
	}
	count := regexp.MustCompile(`(?m)^go_sched_latencies_seconds_count (\d+)$`).FindStringSubmatch(b.String())
	if count == nil || count[1] != ms[len(ms)-1][2] {
		t.Errorf("count %v, want the +Inf bucket's %s", count, ms[len(ms)-1][2])
	}
	if prev == 0 {
		t.Errorf("no latency counted:\n%s", b.String())
	}
	if !regexp.MustCompile(`(?m)^go_sched_latencies_seconds_sum [0-9.e+-]+$`).MatchString(b.String()) {
		t.Errorf("no sum:\n%s", b.String())
	}
}

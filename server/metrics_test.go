package server

import (
	"bytes"
	"math"
	"regexp"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// TestSchedHistogram checks the summing of a runtime histogram into
// Prometheus buckets: each at the runtime's edge at or below a bound, with
// the exact count below it, bounds on one edge merged, none for a bound
// with no edge above zero below it.
func TestSchedHistogram(t *testing.T) {
	inf := math.Inf(1)
	h := &rtmetrics.Float64Histogram{
		Buckets: []float64{-inf, 0, 1e-6, 1e-5, 2e-5, 1e-4, inf},
		Counts:  []uint64{0, 1, 2, 3, 4, 5},
	}
	les, cum, count, sum := schedHistogram(h, []float64{1e-5, 1.5e-5, 5e-5, 1e-3})
	if want := []float64{1e-5, 2e-5, 1e-4}; !slices.Equal(les, want) {
		t.Errorf("bounds %v, want %v", les, want)
	}
	if want := []uint64{3, 6, 10}; !slices.Equal(cum, want) {
		t.Errorf("counts %v, want %v", cum, want)
	}
	if count != 15 {
		t.Errorf("count %d, want 15", count)
	}
	want := 1*0.5e-6 + 2*5.5e-6 + 3*1.5e-5 + 4*6e-5 + 5*1e-4
	if math.Abs(sum-want) > 1e-12 {
		t.Errorf("sum %g, want %g", sum, want)
	}
	if les, _, _, _ := schedHistogram(h, []float64{1e-7}); len(les) != 0 {
		t.Errorf("a bound with no edge above zero below it gave buckets %v", les)
	}
}

// TestSchedLatencies checks the histogram of the Go scheduler's latencies
// in the Prometheus text format: buckets in increasing order, at or below
// the bounds of schedBuckets, with counts that never fall, the +Inf bucket
// equal to the count, and some latencies counted after goroutines have
// waited for one another.
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
	if len(ms) < 2 || len(ms) > len(schedBuckets)+1 || ms[len(ms)-1][1] != "+Inf" {
		t.Fatalf("%d buckets, want 2 to %d ending with +Inf:\n%s", len(ms), len(schedBuckets)+1, b.String())
	}
	prevLE, prevN := 0.0, int64(-1)
	for _, m := range ms {
		le, err := strconv.ParseFloat(m[1], 64)
		if err != nil || le <= prevLE || le < math.Inf(1) && le > schedBuckets[len(schedBuckets)-1] {
			t.Errorf("bucket le=%s after le=%g", m[1], prevLE)
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if n < prevN {
			t.Errorf("bucket le=%s counts %d, less than the bucket before (%d)", m[1], n, prevN)
		}
		prevLE, prevN = le, n
	}
	count := regexp.MustCompile(`(?m)^go_sched_latencies_seconds_count (\d+)$`).FindStringSubmatch(b.String())
	if count == nil || count[1] != ms[len(ms)-1][2] {
		t.Errorf("count %v, want the +Inf bucket's %s", count, ms[len(ms)-1][2])
	}
	if prevN == 0 {
		t.Errorf("no latency counted:\n%s", b.String())
	}
	if !regexp.MustCompile(`(?m)^go_sched_latencies_seconds_sum [0-9.e+-]+$`).MatchString(b.String()) {
		t.Errorf("no sum:\n%s", b.String())
	}
}

package main

import (
	"testing"
	"time"
)

func TestParseWrk(t *testing.T) {
	out := `Running 5s test @ http://127.0.0.1:18080/v1/query
  2 threads and 16 connections
  Latency Distribution
     50%  246.00us
     75%  400.00us
     90%    1.20ms
     99%    6.55ms
  245675 requests in 5.00s, 30.00MB read
  Non-2xx or 3xx responses: 3
Requests/sec:  49135.03
Transfer/sec:      6.00MB
`
	r, err := parseWrk(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.reqPerSec != 49135.03 || r.requests != 245675 || r.non2xx != 3 ||
		r.p50 != 246*time.Microsecond || r.p99 != 6550*time.Microsecond {
		t.Errorf("parseWrk = %+v", r)
	}
	if _, err := parseWrk("garbage"); err == nil {
		t.Error("no error on a report without Requests/sec")
	}
	if got := luaString(`a "quoted" \ text`); got != `"a \"quoted\" \\ text"` {
		t.Errorf("luaString = %s", got)
	}
}

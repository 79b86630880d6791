package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// wrkResult is what one wrk run measured.
type wrkResult struct {
	reqPerSec float64
	p50, p99  time.Duration
	requests  int64
	non2xx    int64
}

var (
	wrkReqSec   = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkTotal    = regexp.MustCompile(`(\d+) requests in`)
	wrkNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkQuantile = regexp.MustCompile(`(?m)^\s+(50|99)(?:\.000)?%\s+([0-9.]+)(us|ms|s)\s*$`)
)

// parseWrk reads the report of wrk --latency.
func parseWrk(out string) (wrkResult, error) {
	var r wrkResult
	m := wrkReqSec.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no Requests/sec in wrk's report:\n%s", out)
	}
	r.reqPerSec, _ = strconv.ParseFloat(m[1], 64)
	if m := wrkTotal.FindStringSubmatch(out); m != nil {
		r.requests, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		r.non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	for _, q := range wrkQuantile.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(q[2], 64)
		unit := map[string]float64{"us": 1e3, "ms": 1e6, "s": 1e9}[q[3]]
		d := time.Duration(v * unit)
		if q[1] == "50" {
			r.p50 = d
		} else {
			r.p99 = d
		}
	}
	return r, nil
}

// luaString quotes s as a Lua string literal.
func luaString(s string) string {
	b, _ := json.Marshal(s) // JSON string escapes are valid Lua escapes for this text
	return string(b)
}

// wrkPhase is a phase of wrk: the requests of a Lua script to a path.
type wrkPhase struct {
	name, path string
	script     []byte
}

// wrkPhases returns wrk's phases: queries by the text of edited copies of
// stored documents, and durable single-document adds.
func wrkPhases(texts []string) []wrkPhase {
	rng := rand.New(rand.NewPCG(11, 12))
	var q bytes.Buffer
	q.WriteString("local bodies = {\n")
	for range 500 {
		fmt.Fprintf(&q, "%s,\n", luaString(string(queryBody(editText(rng, texts[rng.IntN(len(texts))])))))
	}
	q.WriteString("}\nlocal i = 0\nrequest = function()\n  i = i % #bodies + 1\n" +
		"  return wrk.format(\"POST\", \"/v1/query\", {[\"Content-Type\"] = \"application/json\"}, bodies[i])\nend\n")
	var a bytes.Buffer
	a.WriteString("local words = {\n")
	for _, wd := range words[:400] {
		fmt.Fprintf(&a, "%q,\n", wd)
	}
	a.WriteString("}\nlocal n = 0\nlocal tid = math.random(1, 1000000000)\nrequest = function()\n  n = n + 1\n" +
		"  local t = {}\n  for j = 1, 40 do t[j] = words[math.random(#words)] end\n" +
		"  local body = '{\"id\": \"wrk' .. tid .. '-' .. n .. '\", \"text\": \"' .. table.concat(t, ' ') .. '\"}'\n" +
		"  return wrk.format(\"POST\", \"/v1/documents\", {[\"Content-Type\"] = \"application/json\"}, body)\nend\n")
	return []wrkPhase{{"query", "/v1/query", q.Bytes()}, {"add", "/v1/documents", a.Bytes()}}
}

// runWrk measures the servers with wrk, a load generator written in C,
// when it is installed: it spends far less CPU per request than a Go
// client, so on two cores it shows what the server itself sustains. Each
// of wrk's phases runs on each server in turn; the rows go to the servers'
// results.
func runWrk(w io.Writer, c serveConfig, servers []*serveServer, dir string, texts []string, res *serveResults) error {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		res.Wrk = "not installed (apt-get install wrk): the wrk phases are skipped"
		fmt.Fprintf(w, "\nwrk is not installed (apt-get install wrk): the wrk phases are skipped\n")
		return nil
	}
	res.Wrk = fmt.Sprintf("C load generator, 2 threads, %d connections, %s per phase", c.Clients, c.Duration)
	fmt.Fprintf(w, "\nwith wrk (%s):\n", res.Wrk)
	if len(servers) == 2 {
		compareHeader(w)
	} else {
		fmt.Fprintf(w, "%-6s %-6s %9s %10s %9s %9s %7s\n", "PHASE", "OP", "REQUESTS", "REQ/S", "P50", "P99", "NON-2XX")
	}
	for _, ph := range wrkPhases(texts) {
		script := filepath.Join(dir, ph.name+".lua")
		if err := os.WriteFile(script, ph.script, 0o644); err != nil {
			return err
		}
		rows := make([][]serveRow, len(servers))
		for i, s := range servers {
			drain(servers)
			secs := max(1, int(c.Duration.Seconds()))
			cmd := exec.Command(wrk, "-t2", fmt.Sprintf("-c%d", c.Clients), fmt.Sprintf("-d%ds", secs), "--latency", "-s", script, s.base+ph.path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				return fmt.Errorf("wrk: %v\n%s", err, out)
			}
			r, err := parseWrk(string(out))
			if err != nil {
				return err
			}
			row := serveRow{Phase: "wrk", Op: ph.name, Requests: r.requests, ReqPerSec: r.reqPerSec, P50: msOf(r.p50), P99: msOf(r.p99), Errors: r.non2xx}
			rows[i] = []serveRow{row}
			s.res.Rows = append(s.res.Rows, row)
			if len(servers) == 1 {
				fmt.Fprintf(w, "%-6s %-6s %9d %10.0f %9s %9s %7d\n", ph.name, strings.TrimPrefix(ph.path, "/v1/"), r.requests, r.reqPerSec, ms(r.p50), ms(r.p99), r.non2xx)
			}
		}
		if len(servers) == 2 {
			printCompareLines(w, rows)
		}
	}
	return nil
}

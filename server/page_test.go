package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// TestPage checks the page at GET /: HTML, with a Content-Security-Policy
// that allows its own inline style and script by their hashes (so that
// the browser runs them) and requests to the server alone, and the write
// actions only with Options.PageWrites. The browser tests of the bench
// module (bench/pages_test.go) check what the page does.
func TestPage(t *testing.T) {
	for _, writes := range []bool{false, true} {
		x := openIndex(t, filepath.Join(t.TempDir(), "p.db"), nil, index.LogOptions{}, nil)
		u := startServer(t, x, &Options{PageWrites: writes}).url
		r := mustDo(t, "GET", u+"/", "", 200)
		if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("no nosniff: %v", r.header)
		}
		csp := r.header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("the policy %q lacks %q", csp, want)
			}
		}
		for _, tag := range []string{"style", "script"} {
			m := regexp.MustCompile(`(?s)<`+tag+`>(.*?)</`+tag+`>`).FindAllStringSubmatch(r.body, -1)
			if len(m) != 1 {
				t.Fatalf("%d inline %s elements, want 1", len(m), tag)
			}
			h := sha256.Sum256([]byte(m[0][1]))
			src := tag + "-src 'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
			if !strings.Contains(csp, src) {
				t.Errorf("the policy %q does not allow the inline %s (%s)", csp, tag, src)
			}
		}
		hasAdd := strings.Contains(r.body, `id="add-form"`)
		if hasAdd != writes || !strings.Contains(r.body, `data-writes="`+map[bool]string{false: "false", true: "true"}[writes]+`"`) {
			t.Errorf("PageWrites %v: add form %v", writes, hasAdd)
		}
		if h := do(t, "HEAD", u+"/", "", ""); h.status != 200 || h.body != "" || h.header.Get("Content-Length") != r.header.Get("Content-Length") {
			t.Errorf("HEAD /: %d %q %v", h.status, h.body, h.header)
		}
	}
}

// TestCompare checks POST /v1/compare against eval.CompareTexts, which
// simidx compare writes the same way, and its errors.
func TestCompare(t *testing.T) {
	x := openIndex(t, filepath.Join(t.TempDir(), "c.db"), nil, index.LogOptions{}, nil)
	u := startServer(t, x, &Options{MaxDocBytes: 100_000}).url
	a := licenseText(t, "MIT.txt")
	b := strings.Replace(licenseText(t, "X11.txt"), "X CONSORTIUM", "<script>alert(1)</script>", 1)
	body, _ := json.Marshal(map[string]string{"a": a, "b": b})
	r := mustDo(t, "POST", u+"/v1/compare?passages=3", string(body), 200)
	var got eval.CompareRecord
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	st := x.Settings()
	f, err := index.NewFingerprinter(&st)
	if err != nil {
		t.Fatal(err)
	}
	c, err := eval.CompareTexts(context.Background(), f, []byte(a), []byte(b), 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Record([]byte(a), []byte(b), 0, 0); !reflect.DeepEqual(got, want) {
		t.Errorf("POST /v1/compare:\n%+v\nwant\n%+v", got, want)
	}
	if len(got.Passages) != 3 || got.Similarity == nil || got.Jaccard <= 0.5 {
		t.Errorf("MIT and X11: %+v", got)
	}
	for _, p := range got.Passages {
		if a[p.AStart:p.AEnd] != p.Text {
			t.Errorf("passage %+v: A holds %q", p, a[p.AStart:p.AEnd])
		}
	}

	for _, tc := range []struct {
		path, body string
		status     int
		msg        string
	}{
		{"/v1/compare", `{"a":"x"}`, 400, `missing "a" or "b"`},
		{"/v1/compare", `{"a":"x","b":"y","c":"z"}`, 400, `unknown field "c"`},
		{"/v1/compare", `{"a":"x","b":1}`, 400, `field "b" must be a string, not a JSON number`},
		{"/v1/compare", `["x","y"]`, 400, "must be a JSON object"},
		{"/v1/compare", ``, 400, "empty body"},
		{"/v1/compare", `{"a":"x","b":"y"} {}`, 400, "more after the object"},
		{"/v1/compare?passages=101", `{"a":"x","b":"y"}`, 400, "passages must be a whole number from 0 to 100"},
		{"/v1/compare?k=1", `{"a":"x","b":"y"}`, 400, `unknown query parameter "k"; this endpoint takes passages`},
		{"/v1/compare", `{"a":"` + strings.Repeat("y", 100_001) + `","b":"y"}`, 413, `"a" is 100001 bytes, more than the limit of 100000`},
	} {
		r := do(t, "POST", u+tc.path, "", tc.body)
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || r.status != tc.status || !strings.Contains(e.Error, tc.msg) {
			t.Errorf("POST %s %.40q: %d %s; want %d with %q", tc.path, tc.body, r.status, strings.TrimSpace(r.body), tc.status, tc.msg)
		}
	}
	// Texts without words share nothing and match nothing.
	r = mustDo(t, "POST", u+"/v1/compare?passages=0", `{"a":"","b":"..."}`, 200)
	if strings.TrimSpace(r.body) != `{"jaccard":0,"containment_a":0,"containment_b":0,"distance":0,"similarity":0,"exact":false,"passages":[]}` {
		t.Errorf("empty texts: %s", r.body)
	}
}

// FuzzParseCompare checks the body of POST /v1/compare against
// encoding/json: a body parseCompare takes is a JSON object of the two
// strings "a" and "b" and nothing else, and gives the strings that
// encoding/json decodes; every other body is a 400.
func FuzzParseCompare(f *testing.F) {
	for _, b := range []string{`{"a":"x","b":"y"}`, `{"b":"\u00e9\ud83d\ude00","a":"<script>"}`, `{"a":"x"}`, `{"a":1,"b":"y"}`,
		`{"a":"x","b":"y","c":"z"}`, `["a","b"]`, "\xef\xbb\xbf{\"a\":\"\",\"b\":\"\"}", `{"a":"x","b":"y"} {}`, `{"a":"x","a":"z","b":"y"}`, ``} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a, b, err := parseCompare(body)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != http.StatusBadRequest {
				t.Fatalf("parseCompare(%q): %v, not a 400", body, err)
			}
			return
		}
		var want struct{ A, B *string }
		dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil || want.A == nil || want.B == nil {
			t.Fatalf("parseCompare(%q) = %q, %q; encoding/json: %v", body, a, b, err)
		}
		if string(a) != *want.A || string(b) != *want.B {
			t.Fatalf("parseCompare(%q) = %q, %q; encoding/json: %q, %q", body, a, b, *want.A, *want.B)
		}
	})
}

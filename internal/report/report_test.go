package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// pageData is what a report's script reads: the clusters and the texts.
type pageData struct {
	Sim      bool          `json:"sim"`
	Texts    bool          `json:"texts"`
	MaxText  int           `json:"maxText"`
	MaxTexts int           `json:"maxTexts"`
	Clusters []jsonCluster `json:"clusters"`
}

// parsePage returns the data and the texts of a report, read back from
// its script elements as a browser reads them.
func parsePage(t *testing.T, html string) (pageData, []string) {
	t.Helper()
	var d pageData
	m := regexp.MustCompile(`(?s)<script type="application/json" id="simidx-data">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no data element in the report")
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("the data element: %v", err)
	}
	var texts []string
	var raw []json.RawMessage
	for _, m := range regexp.MustCompile(`(?s)<script type="application/json" id="simidx-texts-(\d+)">(.*?)</script>`).FindAllStringSubmatch(html, -1) {
		var chunk []json.RawMessage
		if err := json.Unmarshal([]byte(m[2]), &chunk); err != nil {
			t.Fatalf("the texts element %s: %v", m[1], err)
		}
		if m[1] != fmt.Sprint(len(raw)/1000) {
			t.Fatalf("the texts element %s after %d texts", m[1], len(raw))
		}
		raw = append(raw, chunk...)
	}
	texts = joinTexts(t, raw)
	return d, texts
}

func ptr[T any](v T) *T { return &v }

// hostile are texts and IDs that would run script if they reached the page
// as markup.
var hostile = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	`</script><script>alert(3)</script>`,
	"<!-- \u2028 \u2029 & &amp; ]]>",
}

// TestWriteEscapes writes a report whose IDs and texts are hostile markup
// and checks that none of it is in the file as markup, and that the page's
// data gives every ID and text back as it was.
func TestWriteEscapes(t *testing.T) {
	texts, err := NewTexts(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer texts.Close()
	base := "an ordinary sentence of several words that the copies below share, "
	var ids []string
	for i, h := range hostile {
		id := fmt.Sprintf("%s#%d", h, i)
		ids = append(ids, id)
		texts.Add(id, []byte(base+h+" and more shared words at the end"), false)
	}
	r := New(Options{Command: "simidx dedup --report <x>.html", Settings: []Setting{{"<b>name</b>", "<i>value</i>"}}, Similarity: true})
	c := Cluster{Number: 0}
	for i, id := range ids {
		m := Member{ID: id}
		if i > 0 {
			m.Distance, m.Similarity, m.Exact = ptr(3), ptr(0.75), ptr(false)
		}
		c.Members = append(c.Members, m)
	}
	r.AddCluster(c)
	r.AddPair(3, 0.75)
	var b bytes.Buffer
	if err := r.Write(context.Background(), &b, texts, Summary{Documents: len(ids)}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, bad := range []string{"<script>alert", "<img", "<b>name", "<i>value", "<x>.html", "\u2028", "\u2029", "<!-- "} {
		if strings.Contains(html, bad) {
			t.Errorf("the report holds %q as it is", bad)
		}
	}
	// Only the page's own script elements: two of data, one of code.
	if n := strings.Count(html, "<script"); n != 3 {
		t.Errorf("%d script elements, want 3", n)
	}
	d, ts := parsePage(t, html)
	if len(d.Clusters) != 1 || len(d.Clusters[0].M) != len(ids) {
		t.Fatalf("clusters: %+v", d.Clusters)
	}
	for i, m := range d.Clusters[0].M {
		if m.ID != ids[i] {
			t.Errorf("member %d: ID %q, want %q", i, m.ID, ids[i])
		}
		if m.Text == nil || ts[*m.Text] != base+hostile[i]+" and more shared words at the end" {
			t.Errorf("member %d: text %v of %q", i, m.Text, ts)
		}
		if i > 0 && len(m.Passages) == 0 {
			t.Errorf("member %d shares no passage with the kept one", i)
		}
	}
}

// TestWrite checks the data of a report: clusters largest first, each
// member's figures, texts shared by exact copies, a text cut, one not read,
// the passages in UTF-16 offsets of the texts, and the summary's figures.
func TestWrite(t *testing.T) {
	texts, err := NewTexts(t.TempDir(), 200)
	if err != nil {
		t.Fatal(err)
	}
	defer texts.Close()
	story := "Ünïcödé 😀 text: the quick brown fox jumps over the lazy dog, then it sleeps under the old oak tree all afternoon."
	texts.Add("a", []byte(story), false)
	texts.Add("b", []byte(story), false) // an exact copy
	texts.Add("c", []byte(strings.Replace(story, "lazy", "sleepy", 1)), false)
	long := strings.Repeat("word ", 100) // 500 bytes, cut to 200
	texts.Add("long1", []byte(long), false)
	texts.Add("long2", []byte(long+"!"), false)
	texts.Add("fp", nil, true)
	r := New(Options{Similarity: true})
	r.AddCluster(Cluster{Number: 1, Members: []Member{{ID: "long1"}, {ID: "long2", Distance: ptr(1), Similarity: ptr(0.9), Exact: ptr(false)}}})
	r.AddCluster(Cluster{Number: 0, Members: []Member{{ID: "a"},
		{ID: "b", Distance: ptr(0), Similarity: ptr(1.0), Exact: ptr(true)},
		{ID: "c", Distance: ptr(2), Similarity: ptr(0.8), Exact: ptr(false)},
		{ID: "unread", Distance: ptr(4), Similarity: ptr(0.7), Exact: ptr(false)},
		{ID: "fp", Distance: ptr(3)}}})
	for _, p := range [][2]float64{{0, 1}, {2, 0.8}, {4, 0.7}, {1, 0.9}, {3, 0.61}} {
		r.AddPair(int(p[0]), p[1])
	}
	var b bytes.Buffer
	if err := r.Write(context.Background(), &b, texts, Summary{Documents: 7, Empty: 1}); err != nil {
		t.Fatal(err)
	}
	d, ts := parsePage(t, b.String())
	if !d.Sim || !d.Texts || d.MaxText != 200 || d.MaxTexts != DefaultMaxTexts {
		t.Errorf("head: %+v", d)
	}
	if len(d.Clusters) != 2 || d.Clusters[0].N != 0 || d.Clusters[1].N != 1 {
		t.Fatalf("clusters not largest first: %+v", d.Clusters)
	}
	c := d.Clusters[0].M
	if *c[0].Text != *c[1].Text || ts[*c[0].Text] != story {
		t.Errorf("an exact copy's text: %v %v", *c[0].Text, *c[1].Text)
	}
	if c[1].Exact == nil || !*c[1].Exact || *c[2].Similarity != 0.8 || *c[2].Distance != 2 || *c[0].Bytes != int64(len(story)) {
		t.Errorf("members: %+v", c)
	}
	if c[3].Text != nil || c[3].Why != notRead || c[4].Text != nil || c[4].Why != fingerprintOnly {
		t.Errorf("unread and fingerprint members: %+v %+v", c[3], c[4])
	}
	// c repeats a's passages: its text refers to them, and reads whole.
	if ts[*c[2].Text] != strings.Replace(story, "lazy", "sleepy", 1) || !strings.Contains(b.String(), `{"k":`+fmt.Sprint(*c[0].Text)+`,"s":[[0,`) {
		t.Errorf("c's text: %q", ts[*c[2].Text])
	}
	// The passages of c against a, in UTF-16 code units.
	ka, kc := utf16.Encode([]rune(story)), utf16.Encode([]rune(ts[*c[2].Text]))
	if len(c[2].Passages) != 2 {
		t.Fatalf("passages of c: %v", c[2].Passages)
	}
	for _, p := range c[2].Passages {
		inA, inC := string(utf16.Decode(ka[p[0]:p[1]])), string(utf16.Decode(kc[p[2]:p[3]]))
		if inA != inC || !strings.Contains(story, inA) {
			t.Errorf("passage %v: %q in a, %q in c", p, inA, inC)
		}
	}
	for i, want := range []string{"dog, then it sleeps under the old oak tree all afternoon", "Ünïcödé 😀 text: the quick brown fox jumps over the"} {
		if p := c[2].Passages[i]; string(utf16.Decode(ka[p[0]:p[1]])) != want {
			t.Errorf("passage %d: %q, want %q", i, string(utf16.Decode(ka[p[0]:p[1]])), want)
		}
	}
	l := d.Clusters[1].M
	if !l[0].Cut || !l[1].Cut || *l[1].Bytes != 501 || len(ts[*l[0].Text]) != 200 || *l[0].Text != *l[1].Text {
		t.Errorf("cut texts: %+v %+v", l[0], l[1])
	}
	for _, want := range []string{">7</span><span class=\"note\">in the index", ">6</span><span class=\"note\">documents read in this run",
		">2</span><span class=\"note\">7 documents in clusters", ">5</span><span class=\"note\">every member",
		">1</span><span class=\"note\">members with the kept", "2 of them not read in this run, not counted",
		"<title>0.80 to 0.85: 1 pairs</title>", "Pairs by similarity"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	// Bytes saved: b, c and long2 (unread and fp not counted).
	if want := fmt.Sprintf(">%d bytes</span>", 2*len(story)+2+501); !strings.Contains(b.String(), want) {
		t.Errorf("the summary lacks %q", want)
	}
}

// TestWriteNoTexts checks a report of an index alone: no texts, a
// histogram of distances without similarities.
func TestWriteNoTexts(t *testing.T) {
	r := New(Options{})
	r.AddCluster(Cluster{Number: 0, Members: []Member{{ID: "x"}, {ID: "y", Distance: ptr(2)}}})
	r.AddPair(2, 0)
	var b bytes.Buffer
	if err := r.Write(context.Background(), &b, nil, Summary{Documents: 2}); err != nil {
		t.Fatal(err)
	}
	d, ts := parsePage(t, b.String())
	if d.Sim || d.Texts || ts != nil || d.Clusters[0].M[1].Text != nil {
		t.Errorf("%+v %v", d, ts)
	}
	if !strings.Contains(b.String(), "Pairs by distance") || !strings.Contains(b.String(), "<title>distance 2: 1 pairs</title>") || strings.Contains(b.String(), "bytes saved") {
		t.Errorf("the summary of an index alone:\n%s", b.String())
	}
}

// TestWriteBudget checks that texts beyond Options.MaxTexts are left out,
// and the page says why.
func TestWriteBudget(t *testing.T) {
	texts, err := NewTexts("", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer texts.Close()
	r := New(Options{MaxTexts: 100})
	for i := range 3 {
		a, b := fmt.Sprint("a", i), fmt.Sprint("b", i)
		texts.Add(a, bytes.Repeat([]byte{'a' + byte(i)}, 30), false)
		texts.Add(b, bytes.Repeat([]byte{'A' + byte(i)}, 30), false)
		r.AddCluster(Cluster{Number: i, Members: []Member{{ID: a}, {ID: b, Distance: ptr(0)}}})
	}
	var b bytes.Buffer
	if err := r.Write(context.Background(), &b, texts, Summary{}); err != nil {
		t.Fatal(err)
	}
	d, ts := parsePage(t, b.String())
	if len(ts) != 3 {
		t.Errorf("%d texts, want 3 of 30 bytes in 100", len(ts))
	}
	if m := d.Clusters[1].M[1]; m.Text != nil || m.Why != noRoom {
		t.Errorf("the fourth text: %+v", m)
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		text  string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"two words", 6, "two "},
		{"ééé", 3, "é"}, // not in the middle of a character
		{strings.Repeat("x", 2000) + " y" + strings.Repeat("z", 2000), 3000, strings.Repeat("x", 2000) + " "},
		{strings.Repeat("x", 3000), 2000, strings.Repeat("x", 2000)},
	} {
		if got := string(cut([]byte(tc.text), tc.limit)); got != tc.want {
			t.Errorf("cut(%.20q, %d) = %.20q (%d bytes), want %.20q (%d)", tc.text, tc.limit, got, len(got), tc.want, len(tc.want))
		}
		if got := cut([]byte(tc.text), tc.limit); !utf8.Valid(got) {
			t.Errorf("cut(%.20q, %d) is not UTF-8", tc.text, tc.limit)
		}
	}
}

func TestUTF16Offsets(t *testing.T) {
	text := []byte("aé😀b")
	// Bytes 0 a, 1-2 é, 3-6 😀, 7 b, 8 the end.
	got := utf16Offsets(text, []int{8, 0, 3, 1, 7})
	if want := []int{5, 0, 2, 1, 4}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("utf16Offsets = %v, want %v", got, want)
	}
}

// TestTextsSpool checks the spool: the text read last for an ID, a
// document not read, and the sizes.
func TestTextsSpool(t *testing.T) {
	texts, err := NewTexts(t.TempDir(), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer texts.Close()
	texts.Add("x", []byte("first"), false)
	texts.Add("y", []byte("\xffbad"), false)
	texts.Add("x", []byte("second text"), false)
	if err := texts.lookup(map[string]bool{"x": true, "y": true, "z": true}); err != nil {
		t.Fatal(err)
	}
	if b, sp, err := texts.text("x"); err != nil || string(b) != "seco" || sp.size != 11 {
		t.Errorf("x: %q %+v %v", b, sp, err)
	}
	if b, _, err := texts.text("y"); err != nil || string(b) != "\uFFFDbad" {
		t.Errorf("y: %q %v", b, err)
	}
	if _, _, err := texts.text("z"); err != errNotRead {
		t.Errorf("z: %v", err)
	}
	if texts.Read() != 3 {
		t.Errorf("Read = %d", texts.Read())
	}
}

// TestWriteCancelled checks that Write stops when its context is done.
func TestWriteCancelled(t *testing.T) {
	r := New(Options{Text: index.TextSettings{}})
	r.AddCluster(Cluster{Members: []Member{{ID: "x"}, {ID: "y", Distance: ptr(0)}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Write(ctx, &bytes.Buffer{}, nil, Summary{}); err != context.Canceled {
		t.Errorf("Write = %v, want context.Canceled", err)
	}
}

// TestWriteChunks checks that the texts of a report are split into
// script elements of textsChunk texts, numbered, which together give each
// member its text.
func TestWriteChunks(t *testing.T) {
	texts, err := NewTexts(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer texts.Close()
	r := New(Options{})
	n := 2*textsChunk + 500
	for i := 0; i < n; i += 2 {
		a, b := fmt.Sprint("a", i), fmt.Sprint("b", i)
		texts.Add(a, []byte("text "+a+" <b>"), false)
		texts.Add(b, []byte("text "+b+" & more"), false)
		r.AddCluster(Cluster{Number: i, Members: []Member{{ID: a}, {ID: b, Distance: ptr(1)}}})
	}
	var b bytes.Buffer
	if err := r.Write(context.Background(), &b, texts, Summary{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), `<script type="application/json" id="simidx-texts-`); got != 3 {
		t.Errorf("%d chunks of texts, want 3", got)
	}
	d, ts := parsePage(t, b.String())
	if len(ts) != n {
		t.Fatalf("%d texts, want %d", len(ts), n)
	}
	for _, c := range d.Clusters {
		for _, m := range c.M {
			if want := "text " + m.ID; m.Text == nil || !strings.HasPrefix(ts[*m.Text], want+" ") {
				t.Fatalf("member %s: text %v", m.ID, m.Text)
			}
		}
	}
}

// joinTexts decodes the texts of a report (DecodeTexts), failing t on a
// malformed one; nil for none.
func joinTexts(t *testing.T, raw []json.RawMessage) []string {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	texts, err := DecodeTexts(raw)
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// TestSameBytes checks the part of a passage that a member's text may
// refer to: the whole passage when its bytes are the same in both texts,
// else its longest same start or end, at a character's start.
func TestSameBytes(t *testing.T) {
	long := strings.Repeat("shared words ", 4) // 52 bytes
	for _, tc := range []struct {
		a, b string
		want string // the bytes referred to, "" for none
	}{
		{long, long, long},
		{"Case " + long, "CASE " + long, " " + long},
		{long + "end", long + "END", long},
		{"é" + long, "è" + long, long}, // é and è share their first byte
		{long + "ë", long + "è", long}, // and here too: cut before it
		{"Short x", "Short y", ""},
		{"AAAA " + long + "BBBB", "aaaa " + long + "bbbb", ""}, // the same bytes only in the middle
	} {
		p := eval.Passage{AStart: 0, AEnd: len(tc.a), BStart: 0, BEnd: len(tc.b)}
		got, ok := sameBytes([]byte(tc.a), []byte(tc.b), p)
		if !ok {
			if tc.want != "" {
				t.Errorf("sameBytes(%q, %q): none, want %q", tc.a, tc.b, tc.want)
			}
			continue
		}
		ga, gb := tc.a[got.AStart:got.AEnd], tc.b[got.BStart:got.BEnd]
		if ga != tc.want || gb != tc.want {
			t.Errorf("sameBytes(%q, %q) = %q, %q; want %q", tc.a, tc.b, ga, gb, tc.want)
		}
	}
}

// Package report writes the report of a dedup run as one self-contained
// HTML file: its CSS and its script inline, no request to any network (its
// Content-Security-Policy forbids them), readable offline in a browser.
//
// The report holds a summary (documents, clusters, exact copies, empty
// texts, the bytes a keep policy saves, the settings used and a histogram
// of the similarities of the pairs, an inline SVG), then every cluster,
// largest first, each with its kept member and every other member's
// similarity, distance and exactness to it. Given the texts read in the
// run (Texts), each member's text is in the file too, cut to a limit, with
// the passages it shares with the kept member's text, so that the page
// shows a word-level diff of a member against the kept one, the shared
// passages highlighted. The page filters the clusters by least similarity
// and size and finds them by ID, and shows them a page at a time, so that
// a report of 10,000 clusters opens at once.
//
// Every text and ID is data: it is written as JSON inside script elements
// that are not run (type application/json, with <, > and & escaped), and
// the page puts it in the document as text, never as markup.
package report

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/shingle"
)

// Limits of the texts a report holds.
const (
	// DefaultMaxText is the most bytes of a text a report shows: a longer
	// text is cut (at the end of a word) and marked so.
	DefaultMaxText = 64 << 10
	// DefaultMaxTexts is the most bytes of texts a report holds, as
	// written in it (a member's text that repeats passages of the kept
	// member's refers to them): the members of the clusters after that
	// (the clusters are taken largest first) are listed without their
	// texts.
	DefaultMaxTexts = 64 << 20
	// maxPassages is the most shared passages marked in a diff, the
	// longest; minPassageWords the fewest words of one.
	maxPassages     = 20
	minPassageWords = 3
	// textsChunk is the number of texts in one script element: the page
	// parses the chunk of a text when it first shows it, not every text.
	textsChunk = 1000
)

// Options describe a report.
type Options struct {
	// Command is the command line that made the report, shown at its top.
	Command string
	// Settings are the settings of the run, shown in the summary in this
	// order.
	Settings []Setting
	// Text are the text settings of the index: the shared passages are
	// found on its canonical words.
	Text index.TextSettings
	// Similarity says the members have similarities (an index with the
	// MinHash layer, a set method, or verified pairs): the histogram is
	// of similarities, else of distances.
	Similarity bool
	// Chains says a cluster may join documents through chains of pairs
	// (single linkage), so that a member need not be a pair of the kept
	// one; without it every member dropped is (center linkage).
	Chains bool
	// MaxTexts is the most bytes of texts the report holds, as written
	// in it; 0 means DefaultMaxTexts.
	MaxTexts int64
	// TempDir is where the report spools the texts it writes ("" for the
	// system's temporary directory).
	TempDir string
}

// Setting is a setting of the run, by name.
type Setting struct{ Name, Value string }

// Member is a member of a cluster, with its distance, similarity and
// exactness to the cluster's kept member (nil for the kept member itself,
// and the similarity and exactness nil for a document without text).
type Member struct {
	ID         string
	Distance   *int
	Similarity *float64
	Exact      *bool
}

// Cluster is a cluster of near duplicates: Members[0] is the member kept.
type Cluster struct {
	Number  int
	Members []Member
}

// Summary are the figures of the index that the report states.
type Summary struct {
	Documents int // documents in the index
	Empty     int // documents with no words, which match nothing
}

// Report collects the clusters and pairs of a run, then writes the HTML.
// Memory: the clusters' members, and the histogram.
type Report struct {
	opts     Options
	clusters []Cluster
	pairs    int
	simBins  [20]int // pairs by similarity, bins of 0.05
	distBins []int   // pairs by distance
}

// New returns an empty report.
func New(opts Options) *Report {
	opts.MaxTexts = cmp.Or(opts.MaxTexts, DefaultMaxTexts)
	return &Report{opts: opts}
}

// AddCluster adds a cluster of two or more members, the kept one first.
func (r *Report) AddCluster(c Cluster) { r.clusters = append(r.clusters, c) }

// AddPair counts a pair of near duplicates in the histogram.
func (r *Report) AddPair(distance int, similarity float64) {
	r.pairs++
	b := int(similarity*20 + 1e-9)
	r.simBins[min(max(b, 0), len(r.simBins)-1)]++
	if distance >= 0 {
		if distance >= len(r.distBins) {
			r.distBins = append(r.distBins, make([]int, distance+1-len(r.distBins))...)
		}
		r.distBins[distance]++
	}
}

// Write writes the report to w: the clusters added, largest first (then
// by number), with the texts of their members from texts (nil when no
// text was read in the run), and the figures of sum. Cancelling ctx stops
// it with ctx.Err().
func (r *Report) Write(ctx context.Context, w io.Writer, texts *Texts, sum Summary) error {
	slices.SortStableFunc(r.clusters, func(a, b Cluster) int {
		return cmp.Or(cmp.Compare(len(b.Members), len(a.Members)), cmp.Compare(a.Number, b.Number))
	})
	if texts != nil {
		wanted := map[string]bool{}
		for _, c := range r.clusters {
			for _, m := range c.Members {
				wanted[m.ID] = true
			}
		}
		if err := texts.lookup(wanted); err != nil {
			return err
		}
	}
	tk, err := shingle.NewTokenizer(&r.opts.Text.Shingle)
	if err != nil {
		return err
	}
	p := r.page(texts, sum)
	bw := &errWriter{w: w}
	if err := pageTemplate.Execute(bw, p); err != nil {
		return err
	}
	if bw.err != nil {
		return bw.err
	}
	var tw *textsWriter
	if texts != nil {
		if tw, err = newTextsWriter(r.opts.TempDir, r.opts.MaxTexts); err != nil {
			return err
		}
		defer tw.close()
	}
	bw.WriteString(`<script type="application/json" id="simidx-data">`)
	head, _ := json.Marshal(struct {
		Similarity bool `json:"sim"`
		Texts      bool `json:"texts"`
		MaxText    int  `json:"maxText"`
		MaxTexts   int  `json:"maxTexts"`
		Chunk      int  `json:"chunk"`
	}{r.opts.Similarity, texts != nil, textsMax(texts), int(r.opts.MaxTexts), textsChunk})
	bw.Write(head[:len(head)-1])
	bw.WriteString(`,"clusters":[`)
	for i, c := range r.clusters {
		if err := ctx.Err(); err != nil {
			return err
		}
		jc, err := r.cluster(c, texts, tk, tw)
		if err != nil {
			return err
		}
		b, err := json.Marshal(jc) // escapes <, > and &: no </script> ends the element
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.Write(b)
		if bw.err != nil {
			return bw.err
		}
	}
	bw.WriteString("]}</script>\n<script>")
	bw.WriteString(string(script))
	bw.WriteString("</script>\n")
	if tw != nil {
		if err := tw.copyTo(bw); err != nil {
			return err
		}
	}
	bw.WriteString("</body>\n</html>\n")
	return bw.err
}

func textsMax(t *Texts) int {
	if t == nil {
		return 0
	}
	return t.max
}

// jsonCluster is a cluster in the page's data: its number and members,
// the kept one first.
type jsonCluster struct {
	N int          `json:"n"`
	M []jsonMember `json:"m"`
}

// jsonMember is a member in the page's data, with short names: the file
// holds one per member.
type jsonMember struct {
	ID         string   `json:"i"`
	Distance   *int     `json:"d,omitempty"`
	Similarity *float64 `json:"s,omitempty"`
	Exact      *bool    `json:"x,omitempty"`
	// Bytes is the size of the text read, when it was.
	Bytes *int64 `json:"b,omitempty"`
	// Text is the index of the member's text in the texts' array.
	Text *int `json:"t,omitempty"`
	// Cut says the text is cut to Options.MaxText bytes.
	Cut bool `json:"c,omitempty"`
	// Why says why there is no text: notRead, noRoom or fingerprintOnly.
	Why int `json:"w,omitempty"`
	// Passages are the longest passages the text shares with the kept
	// member's: [kept start, kept end, start, end, words], the offsets
	// in UTF-16 code units of the texts shown (JavaScript's strings).
	Passages [][5]int `json:"p,omitempty"`
}

// Why a member has no text in the report.
const (
	notRead         = 1 // not read in this run (in the index before)
	noRoom          = 2 // the report holds Options.MaxTexts bytes of texts
	fingerprintOnly = 3 // added as a fingerprint
)

// cluster returns c as the page's data, with the texts of its members
// written to tw and the passages each shares with the kept member.
func (r *Report) cluster(c Cluster, texts *Texts, tk *shingle.Tokenizer, tw *textsWriter) (jsonCluster, error) {
	jc := jsonCluster{N: c.Number, M: make([]jsonMember, len(c.Members))}
	var kept []byte // the kept member's text, when the report has it
	var keptWords []shingle.Word
	keptRef := 0
	for i, m := range c.Members {
		jm := &jc.M[i]
		*jm = jsonMember{ID: m.ID, Distance: m.Distance, Similarity: m.Similarity, Exact: m.Exact}
		if texts == nil {
			continue
		}
		text, sp, err := texts.text(m.ID)
		switch {
		case err == errNotRead:
			jm.Why = notRead
			continue
		case err != nil:
			return jc, err
		case sp.fingerprint:
			jm.Why = fingerprintOnly
			continue
		}
		size := sp.size
		jm.Bytes = &size
		jm.Cut = int64(sp.n) < sp.size
		words := tk.AppendWords(nil, text)
		var ps []eval.Passage // longest first
		if i > 0 && kept != nil {
			ps = eval.SharedPassages(words, keptWords, -1)
		}
		ref, ok, err := tw.add(text, func() ([]byte, error) { return textEntry(text, kept, keptRef, ps) })
		if err != nil {
			return jc, err
		}
		if !ok {
			jm.Why = noRoom
			continue
		}
		jm.Text = &ref
		if i == 0 {
			kept, keptWords, keptRef = text, words, ref
			continue
		}
		ps = slices.DeleteFunc(ps, func(p eval.Passage) bool { return p.Words < minPassageWords })
		ps = ps[:min(len(ps), maxPassages)]
		if len(ps) == 0 {
			continue
		}
		var ko, mo []int
		for _, p := range ps {
			ko = append(ko, p.BStart, p.BEnd)
			mo = append(mo, p.AStart, p.AEnd)
		}
		ko, mo = utf16Offsets(kept, ko), utf16Offsets(text, mo)
		for i, p := range ps {
			jm.Passages = append(jm.Passages, [5]int{ko[2*i], ko[2*i+1], mo[2*i], mo[2*i+1], p.Words})
		}
	}
	return jc, nil
}

// utf16Offsets returns the byte offsets offs of text (character starts,
// or len(text)) as offsets in UTF-16 code units, the indexes of
// JavaScript's strings, in the order given. Cost: one pass over the text
// up to the largest offset.
func utf16Offsets(text []byte, offs []int) []int {
	order := make([]int, len(offs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(offs[a], offs[b]) })
	out := make([]int, len(offs))
	i, u := 0, 0
	for _, j := range order {
		for i < offs[j] && i < len(text) {
			r, n := utf8.DecodeRune(text[i:])
			u += utf16Len(r)
			i += n
		}
		out[j] = u
	}
	return out
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// minRefBytes is the shortest passage a member's text refers to in the
// kept member's text rather than repeats.
const minRefBytes = 32

// textEntry returns the JSON of text in the page's texts: a string, or,
// when text repeats passages of kept (the text of the kept member, the
// page's text keptRef) byte for byte and that is shorter, an object
// {"k": keptRef, "s": [...]} whose segments are strings of text and
// [start, end] ranges of kept in UTF-16 code units, which the page joins.
// ps are the passages text shares with kept, longest first. JSON escapes
// <, > and &, and U+2028 and U+2029.
func textEntry(text, kept []byte, keptRef int, ps []eval.Passage) ([]byte, error) {
	plain, err := json.Marshal(string(text))
	if err != nil || kept == nil {
		return plain, err
	}
	// The longest passages, or their longest ends, that are the same
	// bytes in both texts and do not overlap in text.
	var refs []eval.Passage
	for _, p := range ps {
		if p.AEnd-p.AStart < minRefBytes {
			continue
		}
		if p, ok := sameBytes(text, kept, p); ok && !slices.ContainsFunc(refs, func(q eval.Passage) bool { return p.AStart < q.AEnd && q.AStart < p.AEnd }) {
			refs = append(refs, p)
		}
	}
	if len(refs) == 0 {
		return plain, nil
	}
	slices.SortFunc(refs, func(a, b eval.Passage) int { return cmp.Compare(a.AStart, b.AStart) })
	var offs []int
	for _, p := range refs {
		offs = append(offs, p.BStart, p.BEnd)
	}
	offs = utf16Offsets(kept, offs)
	var segs []any
	pos := 0
	for i, p := range refs {
		if p.AStart > pos {
			segs = append(segs, string(text[pos:p.AStart]))
		}
		segs = append(segs, [2]int{offs[2*i], offs[2*i+1]})
		pos = p.AEnd
	}
	if pos < len(text) {
		segs = append(segs, string(text[pos:]))
	}
	enc, err := json.Marshal(struct {
		K int   `json:"k"`
		S []any `json:"s"`
	}{keptRef, segs})
	if err != nil || len(enc) >= len(plain) {
		return plain, err
	}
	return enc, nil
}

// sameBytes returns the passage p of text and kept, whose canonical words
// are the same, if its bytes are the same too; else its longest start or
// end that has the same bytes in both (a passage whose case or spacing
// differs in one place), cut at the start of a character. ok is false
// when that is shorter than minRefBytes.
func sameBytes(text, kept []byte, p eval.Passage) (_ eval.Passage, ok bool) {
	a, b := text[p.AStart:p.AEnd], kept[p.BStart:p.BEnd]
	if bytes.Equal(a, b) {
		return p, true
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for pre > 0 && pre < len(a) && !utf8.RuneStart(a[pre]) {
		pre--
	}
	suf := 0
	for suf < len(a) && suf < len(b) && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for suf > 0 && !utf8.RuneStart(a[len(a)-suf]) {
		suf--
	}
	switch {
	case max(pre, suf) < minRefBytes:
		return p, false
	case pre >= suf:
		p.AEnd, p.BEnd = p.AStart+pre, p.BStart+pre
	default:
		p.AStart, p.BStart = p.AEnd-suf, p.BEnd-suf
	}
	return p, true
}

// textsWriter writes the texts of the report as a JSON array to a
// temporary file, each distinct text once, at most max bytes of JSON.
type textsWriter struct {
	f    *os.File
	n    int              // texts written
	max  int64            // Options.MaxTexts
	seen map[[16]byte]int // the index of each text written, by its hash
	offs []int64          // where each text's JSON starts in f
	off  int64            // the bytes written
}

func newTextsWriter(dir string, max int64) (*textsWriter, error) {
	f, err := os.CreateTemp(dir, "simidx-report-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return &textsWriter{f: f, max: max, seen: map[[16]byte]int{}}, nil
}

// add returns the index of text among the texts written, writing the JSON
// that entry returns if text is new; ok is false when there is no room
// left for it. Texts are told apart by a 128-bit hash (of SHA-256).
func (tw *textsWriter) add(text []byte, entry func() ([]byte, error)) (ref int, ok bool, err error) {
	h := sha256.Sum256(text)
	key := [16]byte(h[:16])
	if i, ok := tw.seen[key]; ok {
		return i, true, nil
	}
	b, err := entry()
	if err != nil {
		return 0, false, err
	}
	if tw.off+int64(len(b))+1 > tw.max {
		return 0, false, nil
	}
	if tw.n > 0 {
		b = append([]byte{','}, b...)
	}
	if _, err := tw.f.Write(b); err != nil {
		return 0, false, fmt.Errorf("writing the report's texts: %w", err)
	}
	ref = tw.n
	tw.offs = append(tw.offs, tw.off)
	tw.off += int64(len(b))
	tw.seen[key] = ref
	tw.n++
	return ref, true, nil
}

// copyTo writes the texts to w as JSON arrays of textsChunk texts, each
// in a script element whose id, simidx-texts-K, numbers its chunk.
func (tw *textsWriter) copyTo(w io.Writer) error {
	for from := 0; from < tw.n; from += textsChunk {
		start, end := tw.offs[from], tw.off
		if from+textsChunk < tw.n {
			end = tw.offs[from+textsChunk]
		}
		if from > 0 {
			start++ // the comma that joins the text to the one before
		}
		if _, err := fmt.Fprintf(w, `<script type="application/json" id="simidx-texts-%d">[`, from/textsChunk); err != nil {
			return err
		}
		if _, err := io.Copy(w, io.NewSectionReader(tw.f, start, end-start)); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "]</script>\n"); err != nil {
			return err
		}
	}
	return nil
}

func (tw *textsWriter) close() { tw.f.Close() }

// errWriter keeps the first error of its writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

func (e *errWriter) WriteString(s string) { e.Write([]byte(s)) }

// The page's assets, inline in every report.
var (
	//go:embed report.css
	style string
	//go:embed report.js
	script string
	//go:embed report.html
	pageHTML string

	pageTemplate = template.Must(template.New("report").Parse(pageHTML))

	// csp allows the inline style and script of the page by their hashes,
	// data: images (the favicon), and nothing else: no request leaves
	// the page.
	csp = "default-src 'none'; style-src " + cspHash(style) + "; script-src " + cspHash(script) + "; img-src data:; base-uri 'none'; form-action 'none'"
)

// cspHash returns the Content-Security-Policy source of the inline
// element whose content is s.
func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// page is what the page template shows.
type page struct {
	Command  string
	CSP      string
	CSS      template.CSS
	Figures  []figure
	Settings []Setting
	Hist     histogram
	// Linkage says how the members of a cluster relate to its kept one.
	Linkage string
}

// figure is a figure of the summary.
type figure struct {
	Label, Value, Note string
}

// page returns the summary of the report.
func (r *Report) page(texts *Texts, sum Summary) page {
	members, exact, dropped := 0, 0, 0
	var saved int64
	unread := 0
	for _, c := range r.clusters {
		members += len(c.Members)
		for i, m := range c.Members {
			if i == 0 {
				continue
			}
			dropped++
			if m.Exact != nil && *m.Exact {
				exact++
			}
			if texts == nil {
				unread++
				continue
			}
			if sp, ok := texts.spans[m.ID]; ok && !sp.fingerprint {
				saved += sp.size
			} else {
				unread++
			}
		}
	}
	num := func(n int) string { return thousands(int64(n)) }
	figs := []figure{
		{"documents", num(sum.Documents), "in the index"},
	}
	if texts != nil {
		figs = append(figs, figure{"read", num(texts.Read()), "documents read in this run"})
	}
	figs = append(figs,
		figure{"clusters", num(len(r.clusters)), num(members) + " documents in clusters"},
		figure{"to drop", num(dropped), "every member of a cluster but the one kept"},
		figure{"exact copies", num(exact), "members with the kept member's canonical text"},
		figure{"empty", num(sum.Empty), "documents with no words, which match nothing"},
	)
	savedNote := "the texts of the members dropped"
	if unread > 0 {
		savedNote = fmt.Sprintf("the texts of the members dropped; %s of them not read in this run, not counted", num(unread))
	}
	if texts != nil {
		figs = append(figs, figure{"bytes saved", bytesString(saved), savedNote})
	}
	figs = append(figs, figure{"pairs", num(r.pairs), "pairs of near duplicates"})
	return page{
		Command:  r.opts.Command,
		CSP:      csp,
		CSS:      template.CSS(style),
		Figures:  figs,
		Settings: r.opts.Settings,
		Hist:     r.histogram(),
		Linkage:  linkageNote(r.opts.Chains),
	}
}

// linkageNote says how a member's similarity to the kept member relates to
// the pairs of the histogram.
func linkageNote(chains bool) string {
	if chains {
		return "A cluster joins documents through chains of pairs: a member's similarity to the kept one can be lower."
	}
	return "Every member dropped is a pair of the member kept."
}

// thousands formats n with thousands separators: 12,345.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// bytesString formats n bytes: 1,234 bytes, 12.3 kB, 4.5 MB.
func bytesString(n int64) string {
	switch {
	case n < 10_000:
		return thousands(n) + " bytes"
	case n < 10_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 10_000_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}

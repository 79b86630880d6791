package index_test

import (
	"path/filepath"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/simhash"
)

// TestMethods checks that the dom and mfonda methods put their
// fingerprints in the tables, so that stored fingerprints from elsewhere
// and new documents meet.
func TestMethods(t *testing.T) {
	dir := t.TempDir()
	m, err := index.Open(filepath.Join(dir, "mfonda.db"), &index.Options{Settings: &index.Settings{
		Text: index.TextSettings{Method: index.MethodMfonda}}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// A fingerprint stored by mfonda/simhash for "this is a test phrase".
	if err := m.AddFingerprint("old", 0x8c3a5f7e9ecb3f35); err != nil {
		t.Fatal(err)
	}
	ms, err := m.Query([]byte("this is a test phrass"), nil)
	if err != nil || len(ms) != 1 || ms[0].ID != "old" || ms[0].Distance != 2 {
		t.Fatalf("mfonda query: %v, %v", ms, err)
	}
	f, _ := index.NewFingerprinter(&index.Settings{Text: index.TextSettings{Method: index.MethodMfonda}})
	if got := f.Sum64([]byte("foo bar")); got != 0xd8dbe7186bad3db3 {
		t.Errorf("Fingerprinter mfonda: %016x", got)
	}

	d, err := index.Open(filepath.Join(dir, "dom.db"), &index.Options{Settings: &index.Settings{
		Text: index.TextSettings{Method: index.MethodDOM}}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	page := func(text string) []byte {
		return []byte("<html><body><div><h1>" + text + "</h1><ul><li>" + text + "</li><li>x</li></ul></div></body></html>")
	}
	if err := d.Add(index.Doc{ID: "a", Text: page("cheap flights to Rome")}); err != nil {
		t.Fatal(err)
	}
	ms, err = d.Query(page("hotels in Madrid, best prices"), nil)
	if err != nil || len(ms) != 1 || ms[0].Distance != 0 {
		t.Fatalf("dom query: %v, %v", ms, err)
	}
	if got, want := d.Settings().Text.DOMDecay, simhash.DefaultDOMDecay; got != want {
		t.Errorf("stored DOM decay %v, want %v", got, want)
	}
	if _, err := index.NewFingerprinter(&index.Settings{Text: index.TextSettings{Method: "nope"}}); err == nil {
		t.Error("unknown method accepted")
	}
}

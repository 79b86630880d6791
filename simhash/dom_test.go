package simhash_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/simidx/simidx/simhash"
)

// page renders a page of a template: the same structure, any text.
func page(title string, items []string, footer bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>%s</title><meta charset=utf-8></head><body>", title)
	b.WriteString(`<div class="nav"><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li></ul></div>`)
	b.WriteString(`<div class="main"><h1>` + title + `</h1><table>`)
	for _, it := range items {
		fmt.Fprintf(&b, "<tr><td>%s</td><td><b>%d</b></td></tr>", it, len(it))
	}
	b.WriteString("</table></div>")
	if footer {
		b.WriteString(`<div class="footer"><p>Contact <a href="mailto:x@y">us</a><br>2024</p></div>`)
	}
	b.WriteString("<script>var a = '<div>';</script></body></html>")
	return b.String()
}

func TestDOM(t *testing.T) {
	a := simhash.DOM([]byte(page("Cheap flights", []string{"Paris", "Rome", "Oslo"}, true)), 0)
	b := simhash.DOM([]byte(page("Hotels in Spain", []string{"Madrid", "Seville", "Bilbao"}, true)), 0)
	c := simhash.DOM([]byte(page("Cheap flights", []string{"Paris", "Rome", "Oslo", "Lima", "Kyiv"}, false)), 0)
	other := simhash.DOM([]byte(`<html><body><article><section><p>Some <em>text</em></p><p>more</p></section>`+
		`<aside><ol><li>x</li></ol></aside></article><form><input><select><option>1</option></select></form></body></html>`), 0)
	if a != b {
		t.Errorf("same template, other text: distance %d, want 0", simhash.Distance(a, b))
	}
	if d := simhash.Distance(a, c); d == 0 || d > 8 {
		t.Errorf("same template, more rows and no footer: distance %d, want 1..8", d)
	}
	// Every page shares html, head and body, which weigh most: another
	// structure is far from the template, but not as far as random (32).
	if d := simhash.Distance(a, other); d <= 6 {
		t.Errorf("other structure: distance %d, want more than 6", d)
	}
	if simhash.DOM([]byte("no tags at all"), 0) != 0 {
		t.Error("text without tags must give 0")
	}
	if simhash.DOM([]byte(page("x", nil, true)), 0.9) == simhash.DOM([]byte(page("x", nil, true)), 0.1) {
		t.Log("decay changed nothing on this page") // allowed, but unusual
	}
}

package server

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"strconv"
)

// The page of GET /: a form over the API for people, its style and script
// inline.
var (
	//go:embed page/page.html
	pageHTML string
	//go:embed page/page.css
	pageStyle string
	//go:embed page/page.js
	pageScript string

	pageTemplate = template.Must(template.New("page").Parse(pageHTML))

	// pageCSP allows the page's own inline style and script (by their
	// hashes), requests to this server, and nothing else: no other
	// script, no frame, no form sent elsewhere.
	pageCSP = "default-src 'none'; style-src " + cspHash(pageStyle) + "; script-src " + cspHash(pageScript) +
		"; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

// cspHash returns the Content-Security-Policy source that allows the
// inline element whose content is s.
func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// renderPage returns the page, with the write actions when writes is set.
func renderPage(writes bool) ([]byte, error) {
	var b bytes.Buffer
	err := pageTemplate.Execute(&b, struct {
		Writes bool
		CSS    template.CSS
		JS     template.JS
	}{writes, template.CSS(pageStyle), template.JS(pageScript)})
	return b.Bytes(), err
}

// handlePage is GET /: the page. Its script calls the API (POST
// /v1/query, POST /v1/compare, GET /v1/documents/{id}/similar, GET
// /v1/stats, and with Options.PageWrites POST /v1/documents and DELETE
// /v1/documents/{id}); every text and ID it shows is put in the document
// as text, never as markup.
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(s.page)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(s.page)
	return err
}

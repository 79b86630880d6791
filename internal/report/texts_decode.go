package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"
)

// DecodeTexts decodes the texts of a report as its page does: each is a
// JSON string, or {"k": the index of an earlier text, "s": segments}, each
// segment a string or a [start, end] range of that text in UTF-16 code
// units (the form of a member's text that repeats passages of its kept
// member's). For tests and tools that read a report back. Cost: O(total
// length of the texts).
func DecodeTexts(raw []json.RawMessage) ([]string, error) {
	texts := make([]string, len(raw))
	for i, m := range raw {
		var s string
		if json.Unmarshal(m, &s) == nil {
			texts[i] = s
			continue
		}
		var e struct {
			K int               `json:"k"`
			S []json.RawMessage `json:"s"`
		}
		if err := json.Unmarshal(m, &e); err != nil {
			return nil, fmt.Errorf("text %d: %v", i, err)
		}
		if e.K < 0 || e.K >= i {
			return nil, fmt.Errorf("text %d refers to text %d, not an earlier one", i, e.K)
		}
		base := utf16.Encode([]rune(texts[e.K]))
		var b strings.Builder
		for _, seg := range e.S {
			var lit string
			var r [2]int
			if json.Unmarshal(seg, &lit) == nil {
				b.WriteString(lit)
			} else if err := json.Unmarshal(seg, &r); err == nil && 0 <= r[0] && r[0] <= r[1] && r[1] <= len(base) {
				b.WriteString(string(utf16.Decode(base[r[0]:r[1]])))
			} else {
				return nil, fmt.Errorf("text %d: segment %s", i, seg)
			}
		}
		texts[i] = b.String()
	}
	return texts, nil
}

package shingle_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/simidx/simidx/shingle"
)

func tokens(t testing.TB, opts *shingle.Options, text string) []string {
	t.Helper()
	tk, err := shingle.NewTokenizer(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	tk.Reset([]byte(text))
	for tok, ok := tk.Next(); ok; tok, ok = tk.Next() {
		out = append(out, string(tok))
	}
	return out
}

func TestTokenizerScripts(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"english", "Hello, World! It's 3.14 or 1,000.", "hello world its 3.14 or 1,000"},
		{"russian", "Привет, МИР! Ёлка-палка.", "привет мир ёлка палка"},
		{"chinese", "这是中文，测试。", "这 是 中 文 测 试"},
		{"traditional", "這是繁體中文", "這 是 繁 體 中 文"},
		{"japanese", "日本語のテキスト、カタカナとひらがな。", "日 本 語 の テ キ ス ト カ タ カ ナ と ひ ら が な"},
		{"half-width kana", "ｶﾀｶﾅ", "カ タ カ ナ"},
		{"full-width latin", "ＡＢＣ１２３", "abc123"},
		{"mixed", "Go言語でWebサーバー", "go 言 語 で web サ ー バ ー"},
		{"thai", "ภาษาไทย", "ภ า ษ า ไ ท ย"},
		{"korean", "한국어 텍스트", "한국어 텍스트"},
		{"greek", "ΣΊΣΥΦΟΣ", "σίσυφοσ"},
		{"german fold", "STRAẞE Straße", "strasse strasse"},
		{"apostrophe", "don’t rock'n'roll 'quoted'", "dont rocknroll quoted"},
		{"invalid utf8", "a\xffb\x00c", "a b c"},
		{"html", "<p>Fish&nbsp;&amp;&nbsp;<b>ch</b>ips</p><script>x()</script>", "fish chips"},
		{"not html", "a < b and c > d, mail <a@b.org>", "a b and c d mail a b org"},
		{"empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(tokens(t, nil, c.in), " ")
			if got != c.want {
				t.Errorf("tokens(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestTokenizerOptions(t *testing.T) {
	if got := strings.Join(tokens(t, &shingle.Options{KeepCase: true}, "Hello World"), " "); got != "Hello World" {
		t.Errorf("KeepCase: %q", got)
	}
	if got := strings.Join(tokens(t, &shingle.Options{KeepPunct: true}, "a, b!"), " "); got != "a , b !" {
		t.Errorf("KeepPunct: %q", got)
	}
	if got := strings.Join(tokens(t, &shingle.Options{Markup: shingle.MarkupKeep}, "<p>x</p>"), " "); got != "p x p" {
		t.Errorf("MarkupKeep: %q", got)
	}
	if got := strings.Join(tokens(t, &shingle.Options{Markup: shingle.MarkupStrip}, "a<x>b"), " "); got != "a b" {
		t.Errorf("MarkupStrip: %q", got)
	}
	if got := strings.Join(tokens(t, &shingle.Options{NoNormalize: true}, "ＡＢＣ"), " "); got != "ａｂｃ" {
		t.Errorf("NoNormalize: %q", got)
	}
	if _, err := shingle.NewTokenizer(&shingle.Options{Size: shingle.MaxSize + 1}); err == nil {
		t.Error("size over MaxSize accepted")
	}
}

// TestHugeTokens feeds 10 MB tokens of several kinds: every token stays
// within MaxTokenLen and nothing is lost or repeated.
func TestHugeTokens(t *testing.T) {
	for _, unit := range []string{"a", "ß", "é", "\u0301", "日", "ก\u0e34"} {
		text := strings.Repeat(unit, 10<<20/len(unit))
		tk, _ := shingle.NewTokenizer(nil)
		tk.Reset([]byte(text))
		n := 0
		for tok, ok := tk.Next(); ok; tok, ok = tk.Next() {
			if len(tok) == 0 || len(tok) > shingle.MaxTokenLen {
				t.Fatalf("%q: token of %d bytes", unit, len(tok))
			}
			n += len(tok)
		}
		if n == 0 {
			t.Errorf("%q: no tokens", unit)
		}
	}
}

// TestCanonicalIdempotent checks that canonicalizing a canonical form gives
// it back, on the sample and on random text from a mixed alphabet.
func TestCanonicalIdempotent(t *testing.T) {
	var texts []string
	for _, d := range loadSample(t) {
		texts = append(texts, d.Text)
	}
	alphabet := []rune("aZ09 ,.'’-<>&;#/!ßẞİıΣσςёЁ日本語カｶﾀﾅー・ก\u0e34\u0301\u0308ﬁ½①Ａ\ufeff\u00a0\t\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		r := make([]rune, rng.IntN(40))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	for _, opts := range []*shingle.Options{nil, {KeepPunct: true}, {KeepCase: true}} {
		tk, _ := shingle.NewTokenizer(opts)
		for _, text := range texts {
			c1 := tk.AppendCanonical(nil, []byte(text))
			c2 := tk.AppendCanonical(nil, c1)
			if !bytes.Equal(c1, c2) {
				t.Fatalf("opts %+v: not idempotent on %q:\n once:  %q\n twice: %q", opts, text, c1, c2)
			}
			if !utf8.Valid(c1) {
				t.Fatalf("canonical form of %q is not valid UTF-8: %q", text, c1)
			}
		}
	}
}

func TestAppendUnitsChars(t *testing.T) {
	tk, _ := shingle.NewTokenizer(&shingle.Options{Unit: shingle.Chars})
	// "ab 日本 cd": a b 日 本 c d: no space next to the no-space script.
	if n := len(tk.AppendUnits(nil, []byte("ab 日本 cd"))); n != 6 {
		t.Errorf("got %d character units, want 6", n)
	}
}

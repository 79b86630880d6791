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
		{"russian", "Привет, МИР! Ёлка-палка, ёж.", "привет мир елка палка еж"},
		{"chinese", "这是中文，测试。", "这 是 中 文 测 試"},
		{"traditional", "這是繁體中文", "这 是 繁 体 中 文"},
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

// TestHanFold checks that simplified, traditional and variant spellings
// give the same tokens, and stay apart with NoHanFold.
func TestHanFold(t *testing.T) {
	for _, p := range [][2]string{
		{"这是繁体中文，测试简体", "這是繁體中文，測試簡體"},
		{"爲", "為"}, {"閑", "閒"}, {"为", "為"}, {"闲", "閑"},
		{"软件开发", "軟件開發"},
		// Taiwan and mainland words: 檔案/文件 (file), 程式/程序 (program).
		{"这个程序读取文件", "這個程式讀取檔案"},
	} {
		a, b := strings.Join(tokens(t, nil, p[0]), " "), strings.Join(tokens(t, nil, p[1]), " ")
		if a != b {
			t.Errorf("%q gives %q, %q gives %q", p[0], a, p[1], b)
		}
		if p[0] != p[1] && strings.Join(tokens(t, &shingle.Options{NoHanFold: true}, p[0]), " ") ==
			strings.Join(tokens(t, &shingle.Options{NoHanFold: true}, p[1]), " ") {
			t.Errorf("NoHanFold: %q and %q still fold together", p[0], p[1])
		}
	}
	// Distinct modern characters are not merged through old variant links.
	for _, p := range [][2]string{{"他", "她"}, {"他", "它"}, {"后", "後"}} {
		if p[0] == "后" {
			continue // 后/後 do fold: 后 is the simplified form of 後
		}
		if strings.Join(tokens(t, nil, p[0]), "") == strings.Join(tokens(t, nil, p[1]), "") {
			t.Errorf("%q and %q fold together", p[0], p[1])
		}
	}
}

// TestGrams checks character n-grams for scripts written without spaces.
func TestGrams(t *testing.T) {
	for _, c := range []struct {
		gram     int
		in, want string
	}{
		{2, "日本語のテキスト", "日本 本語 語の のテ テキ キス スト"},
		{3, "日本語", "日本語"},
		{3, "日本", "日本"},
		{2, "Go言語でWebサーバー", "go 言語 語で web サー ーバ バー"},
		{2, "ภาษาไทย", "ภา าษ ษา าไ ไท ทย"},
		{2, strings.Repeat("日本", 70), strings.TrimSpace(strings.Repeat("日本 本日 ", 69)) + " 日本"},
	} {
		got := strings.Join(tokens(t, &shingle.Options{Gram: c.gram}, c.in), " ")
		if got != c.want {
			t.Errorf("gram %d: tokens(%q) = %q, want %q", c.gram, c.in, got, c.want)
		}
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
	alphabet := []rune("爲為閑閒这這aZ09 ,.'’-<>&;#/!ßẞİıΣσςёЁ日本語カｶﾀﾅー・ก\u0e34\u0301\u0308ﬁ½①Ａ\ufeff\u00a0\t\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		r := make([]rune, rng.IntN(40))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	for _, opts := range []*shingle.Options{nil, {KeepPunct: true}, {KeepCase: true}, {Gram: 2}, {Gram: 3},
		{StopWords: "en,ru", FoldPlurals: true}} {
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

package shingle

import (
	"fmt"
	"strings"
)

// stopWords are the stop-word lists by language: the most frequent function
// words, in canonical form (case folded, apostrophes dropped, ё as е).
var stopWords = map[string]string{
	"en": `a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it
its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt shouldnt im ive id youre
youve hes shes its were theyre thats`,
	"ru": `а без более бы был была были было быть в вам вас весь во вот все всего всех вы где да
даже для до его ее ей ему если есть еще же за здесь и из или им их к как ко когда кто ли
либо мне может мы на над надо наш не него нее нет ни них но ну о об однако он она они оно
от очень по под при с со так также такой там те тем то того тоже той только том ты у уже
хотя чего чей чем что чтобы чье чья эта эти это я`,
}

// stopSet returns the set of stop words of the comma-separated languages,
// or an error naming an unknown language.
func stopSet(langs string) (map[string]bool, error) {
	if langs == "" {
		return nil, nil
	}
	set := map[string]bool{}
	for _, l := range strings.Split(langs, ",") {
		words, ok := stopWords[strings.TrimSpace(l)]
		if !ok {
			return nil, fmt.Errorf("shingle: no stop words for language %q (have en, ru)", l)
		}
		for _, w := range strings.Fields(words) {
			set[w] = true
		}
	}
	return set, nil
}

// foldPlural folds an English plural to its singular the way Broder's
// shingling does: -ies to -y, and a trailing -s dropped (not -ss), for
// tokens of four bytes or more. It may reuse tok's memory through buf.
func foldPlural(tok, buf []byte) []byte {
	n := len(tok)
	if n < 4 || tok[n-1] != 's' {
		return tok
	}
	if n > 4 && tok[n-3] == 'i' && tok[n-2] == 'e' {
		return append(append(buf[:0], tok[:n-3]...), 'y')
	}
	if tok[n-2] == 's' {
		return tok
	}
	return tok[:n-1]
}

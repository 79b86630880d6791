package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
)

// series is one line (or set of points) of a chart. NaN values are gaps.
type series struct {
	Name string
	X, Y []float64
}

// chart is a line or scatter chart with linear or logarithmic axes, written
// as a self-contained SVG file.
type chart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Scatter               bool     // points only, no lines
	YMin, YMax            *float64 // fixed y range (default: the data's)
	Series                []series
}

const (
	svgW, svgH                 = 760, 440
	padL, padR, padT, padB     = 70, 230, 40, 55
	plotW, plotH               = svgW - padL - padR, svgH - padT - padB
	legendX                    = svgW - padR + 15
	legendLine, legendFontSize = 18, 12
)

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// axis maps data values to pixels.
type axis struct {
	lo, hi   float64 // data range (log10 of it for a log axis)
	log      bool
	px0, px1 float64 // pixel positions of lo and hi
}

func (a axis) tr(v float64) float64 {
	if a.log {
		v = math.Log10(v)
	}
	return v
}

// pos returns the pixel position of data value v.
func (a axis) pos(v float64) float64 {
	t := (a.tr(v) - a.lo) / (a.hi - a.lo)
	return a.px0 + t*(a.px1-a.px0)
}

// ticks returns tick values: powers of ten on a log axis, 1-2-5 steps
// giving about five ticks on a linear one.
func (a axis) ticks() []float64 {
	var ts []float64
	if a.log {
		for e := math.Ceil(a.lo - 1e-9); e <= a.hi+1e-9; e++ {
			ts = append(ts, math.Pow(10, e))
		}
		return ts
	}
	step := niceStep((a.hi - a.lo) / 5)
	for i := math.Ceil(a.lo/step - 1e-9); i*step <= a.hi+step*1e-9; i++ {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(i*step, 'g', 12, 64), 64)
		ts = append(ts, v+0) // +0 turns -0 into 0
	}
	return ts
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func tickLabel(v float64) string {
	av := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case av >= 1e4 || av < 1e-3:
		e := int(math.Round(math.Log10(av)))
		if math.Abs(av-math.Pow(10, float64(e))) < 1e-9*av {
			return "1e" + strconv.Itoa(e)
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}

// newAxis fits an axis to the values (positive ones only on a log axis).
func newAxis(vals []float64, log bool, fixLo, fixHi *float64, px0, px1 float64) axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) || log && v <= 0 {
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if fixLo != nil {
		lo = *fixLo
	}
	if fixHi != nil {
		hi = *fixHi
	}
	if lo > hi { // no data
		lo, hi = 0, 1
		if log {
			lo = 1
			hi = 10
		}
	}
	a := axis{log: log, px0: px0, px1: px1}
	if log {
		a.lo, a.hi = math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		if a.lo == a.hi {
			a.hi++
		}
		return a
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	step := niceStep((hi - lo) / 5)
	if fixLo == nil {
		lo = math.Floor(lo/step) * step
	}
	if fixHi == nil {
		hi = math.Ceil(hi/step) * step
	}
	a.lo, a.hi = lo, hi
	return a
}

// write writes the chart as SVG.
func (c *chart) write(w io.Writer) error {
	var xs, ys []float64
	for _, s := range c.Series {
		xs = append(xs, s.X...)
		ys = append(ys, s.Y...)
	}
	ax := newAxis(xs, c.LogX, nil, nil, padL, padL+plotW)
	ay := newAxis(ys, c.LogY, c.YMin, c.YMax, padT+plotH, padT)
	p := &errWriter{w: w}
	p.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	p.f(`<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	p.f(`<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", padL, esc(c.Title))
	// Grid, ticks and labels.
	for _, t := range ax.ticks() {
		x := ax.pos(t)
		p.f(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, padT, x, padT+plotH)
		p.f(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, padT+plotH+16, tickLabel(t))
	}
	for _, t := range ay.ticks() {
		y := ay.pos(t)
		p.f(`<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", padL, y, padL+plotW, y)
		p.f(`<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", padL-6, y+4, tickLabel(t))
	}
	p.f(`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", padL, padT, plotW, plotH)
	p.f(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", padL+plotW/2, svgH-12, esc(c.XLabel))
	p.f(`<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">%s</text>`+"\n", padT+plotH/2, padT+plotH/2, esc(c.YLabel))
	// Data.
	for i, s := range c.Series {
		col := palette[i%len(palette)]
		var pts []string
		flush := func() {
			if len(pts) > 1 && !c.Scatter {
				p.f(`<polyline fill="none" stroke="%s" stroke-width="2" points="`, col)
				for j, q := range pts {
					if j > 0 {
						p.f(" ")
					}
					p.f("%s", q)
				}
				p.f(`"/>` + "\n")
			}
			pts = pts[:0]
		}
		for j := range s.X {
			if j >= len(s.Y) || !c.visible(s.X[j], s.Y[j]) {
				flush()
				continue
			}
			x, y := ax.pos(s.X[j]), ay.pos(s.Y[j])
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			p.f(`<circle cx="%.1f" cy="%.1f" r="%d" fill="%s"/>`+"\n", x, y, map[bool]int{true: 2, false: 3}[c.Scatter], col)
		}
		flush()
		ly := padT + 8 + i*legendLine
		p.f(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", legendX, ly, legendX+18, ly, col)
		p.f(`<text x="%d" y="%d" font-size="%d">%s</text>`+"\n", legendX+24, ly+4, legendFontSize, esc(s.Name))
	}
	p.f("</svg>\n")
	return p.err
}

// visible reports whether a point can be drawn on the chart's axes.
func (c *chart) visible(x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return false
	}
	return !(c.LogX && x <= 0 || c.LogY && y <= 0)
}

func esc(s string) string { return html.EscapeString(s) }

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) f(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

package paimon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// This file renders JSON exactly as Paimon Java's Jackson ObjectMapper with the
// default pretty printer does: objects break lines with a 2-space indent per
// object nesting level and "key" : value; arrays stay inline ("[ a, b ]"),
// empty containers are "{ }" and "[ ]"; strings escape only '"', '\\' and
// control characters; there is no trailing newline.

// jnode is an ordered JSON value: jobj, jarr or jraw (an encoded scalar).
type jnode interface{}

type jkv struct {
	k string
	v jnode
}

type jobj []jkv
type jarr []jnode
type jraw string

func (o *jobj) add(k string, v jnode) { *o = append(*o, jkv{k, v}) }

func jstr(s string) jraw { return jraw(quoteJackson(s)) }
func jint(n int64) jraw  { return jraw(strconv.FormatInt(n, 10)) }
func jnull() jraw        { return jraw("null") }
func jbool(b bool) jraw  { return jraw(strconv.FormatBool(b)) }
func jstrs(ss []string) jarr {
	a := make(jarr, 0, len(ss))
	for _, s := range ss {
		a = append(a, jstr(s))
	}
	return a
}

// jsonTree converts any JSON document into an ordered tree (key order kept).
func jsonTree(b []byte) (jnode, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	n, err := treeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return n, nil
}

func treeValue(d *json.Decoder) (jnode, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := jobj{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := treeValue(d)
				if err != nil {
					return nil, err
				}
				o.add(k, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := jarr{}
			for d.More() {
				v, err := treeValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return jstr(t), nil
	case json.Number:
		return jraw(t.String()), nil
	case bool:
		return jbool(t), nil
	case nil:
		return jnull(), nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// marshalTree converts a value with a MarshalJSON method into an ordered tree.
func marshalTree(v any) (jnode, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonTree(b)
}

// renderJackson renders n in Jackson's default pretty-printed form.
func renderJackson(n jnode) []byte {
	var buf bytes.Buffer
	renderNode(&buf, n, 0)
	return buf.Bytes()
}

func renderNode(buf *bytes.Buffer, n jnode, nesting int) {
	switch v := n.(type) {
	case jobj:
		if len(v) == 0 {
			buf.WriteString("{ }")
			return
		}
		buf.WriteByte('{')
		for i, kv := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
			indent(buf, nesting+1)
			buf.WriteString(quoteJackson(kv.k))
			buf.WriteString(" : ")
			renderNode(buf, kv.v, nesting+1)
		}
		buf.WriteByte('\n')
		indent(buf, nesting)
		buf.WriteByte('}')
	case jarr:
		if len(v) == 0 {
			buf.WriteString("[ ]")
			return
		}
		buf.WriteString("[ ")
		for i, e := range v {
			if i > 0 {
				buf.WriteString(", ")
			}
			renderNode(buf, e, nesting)
		}
		buf.WriteString(" ]")
	case jraw:
		buf.WriteString(string(v))
	case nil:
		buf.WriteString("null")
	default:
		panic(fmt.Sprintf("paimon: unexpected JSON node %T", n))
	}
}

func indent(buf *bytes.Buffer, n int) {
	for i := 0; i < n; i++ {
		buf.WriteString("  ")
	}
}

// quoteJackson quotes s the way Jackson does (no HTML escaping, non-ASCII raw).
func quoteJackson(s string) string {
	const hex = "0123456789ABCDEF"
	var b bytes.Buffer
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\b':
				b.WriteString(`\b`)
			case c == '\f':
				b.WriteString(`\f`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xF])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\uFFFD`)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

package shellwrite

import (
	"errors"
	"fmt"
	"strings"
)

// printfOutput returns what `printf format args...` prints, for the formats on which the printf
// builtins of bash, dash and zsh agree:
//
//   - escapes \\ \n \t \r (bash alone knows \x and \u; \c, \a, octal and \" vary or stop output);
//   - conversions %% %s %b, without flags, width or precision; %b arguments may use the same four
//     escapes only;
//   - the format is reused while arguments remain; missing arguments print as "".
//
// A format with no conversion but with arguments is rejected: POSIX leaves it unspecified.
func printfOutput(format string, args []string) ([]byte, error) {
	if strings.HasPrefix(format, "-") {
		return nil, fmt.Errorf("printf: format %q looks like an option", format)
	}
	pieces, conversions, err := parsePrintfFormat(format)
	if err != nil {
		return nil, err
	}
	if conversions == 0 && len(args) > 0 {
		return nil, errors.New("printf: arguments but no conversion (unspecified by POSIX)")
	}
	var out strings.Builder
	next := 0
	for pass := 0; pass == 0 || next < len(args); pass++ {
		for _, p := range pieces {
			if p.conversion == 0 {
				out.WriteString(p.text)
				continue
			}
			arg := ""
			if next < len(args) {
				arg = args[next]
				next++
			}
			if p.conversion == 'b' {
				if arg, err = printfEscapes(arg); err != nil {
					return nil, fmt.Errorf("printf: %%b argument: %w", err)
				}
			}
			out.WriteString(arg)
		}
	}
	return []byte(out.String()), nil
}

// printfPiece is literal text of a format (conversion 0), or a conversion 's' or 'b'.
type printfPiece struct {
	text       string
	conversion byte
}

// parsePrintfFormat splits format into pieces and counts its conversions.
func parsePrintfFormat(format string) (pieces []printfPiece, conversions int, err error) {
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			pieces = append(pieces, printfPiece{text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(format); i++ {
		switch c := format[i]; c {
		case '\\':
			if i+1 == len(format) {
				return nil, 0, errors.New("printf: format ends in a backslash")
			}
			i++
			e, err := printfEscape(format[i])
			if err != nil {
				return nil, 0, fmt.Errorf("printf: format: %w", err)
			}
			text.WriteByte(e)
		case '%':
			if i+1 == len(format) {
				return nil, 0, errors.New("printf: format ends in '%'")
			}
			i++
			switch conv := format[i]; conv {
			case '%':
				text.WriteByte('%')
			case 's', 'b':
				flush()
				pieces = append(pieces, printfPiece{conversion: conv})
				conversions++
			default:
				return nil, 0, fmt.Errorf("printf: conversion %%%c", conv)
			}
		default:
			text.WriteByte(c)
		}
	}
	flush()
	return pieces, conversions, nil
}

// printfEscapes expands the backslash escapes of a %b argument.
func printfEscapes(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", errors.New("ends in a backslash")
		}
		i++
		e, err := printfEscape(s[i])
		if err != nil {
			return "", err
		}
		b.WriteByte(e)
	}
	return b.String(), nil
}

// printfEscape returns the byte that \c stands for, for the escapes all printf builtins share.
func printfEscape(c byte) (byte, error) {
	switch c {
	case '\\':
		return '\\', nil
	case 'n':
		return '\n', nil
	case 't':
		return '\t', nil
	case 'r':
		return '\r', nil
	}
	return 0, fmt.Errorf("escape \\%c differs between shells", c)
}

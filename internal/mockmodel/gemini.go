package mockmodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// GeminiShellTool is gemini-cli's shell tool.
const GeminiShellTool = "run_shell_command"

// Gemini is a mock Gemini API (generativelanguage v1beta) for gemini-cli.
// Point GOOGLE_GEMINI_BASE_URL at URL().
//
// gemini-cli streams its turns with `POST
// /v1beta/models/MODEL:streamGenerateContent?alt=sse`. Requests that offer
// run_shell_command follow the script; any other one (the model router's
// classifier, a non-streamed generateContent, countTokens) gets a short
// text reply.
type Gemini struct {
	server
}

// NewGemini starts a Gemini server on 127.0.0.1 that follows script; it is
// closed when the test ends.
func NewGemini(t testing.TB, script Script) *Gemini { return newMock[Gemini](t, "Gemini", script) }

// URL is the base URL, for GOOGLE_GEMINI_BASE_URL.
func (m *Gemini) URL() string { return m.srv.URL }

// geminiRequest is the part of a generateContent request the mock reads.
type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text             *string         `json:"text"`
		FunctionResponse json.RawMessage `json:"functionResponse"`
	} `json:"parts"`
}

func (m *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	i, body, ok := m.accept(w, r)
	if !ok {
		return
	}
	// The path is /v1beta/models/MODEL:METHOD.
	_, method, _ := strings.Cut(r.URL.Path, ":")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		method = ""
	}
	switch method {
	case "countTokens":
		m.rec.setReply(i, "aux")
		writeJSON(w, map[string]any{"totalTokens": 10})
		return
	case "generateContent", "streamGenerateContent":
	default:
		m.unexpected(w, r, i, body)
		return
	}
	var req geminiRequest
	if m.decode(w, i, body, &req) {
		m.turn(w, r, i, req, method == "streamGenerateContent")
	}
}

// turn answers a generateContent request, streamed or not.
func (m *Gemini) turn(w http.ResponseWriter, r *http.Request, i int, req geminiRequest, stream bool) {
	if !req.offers(GeminiShellTool) {
		m.rec.setReply(i, "aux")
		m.write(w, stream, textPart(AuxText))
		return
	}
	done := req.functionResponsesThisTurn()
	if done < m.script.steps() {
		c := m.script.stepCall(done, GeminiShellTool)
		m.rec.setReply(i, "tool "+c.Tool)
		m.write(w, stream, map[string]any{"functionCall": map[string]any{"name": c.Tool, "args": c.Args}})
		return
	}
	if m.answering(r, i, "answer", done, 0) {
		m.write(w, stream, textPart(m.script.answer()))
	}
}

func (req geminiRequest) offers(name string) bool {
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name == name {
				return true
			}
		}
	}
	return false
}

// functionResponsesThisTurn counts the functionResponse parts after the
// last user content that is a prompt (has text but no functionResponse),
// that is, how many of the script's commands already ran in this turn.
func (req geminiRequest) functionResponsesThisTurn() int {
	n := 0
	for _, c := range req.Contents {
		if c.Role != "user" {
			continue
		}
		results, texts := 0, 0
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				results++
			case p.Text != nil:
				texts++
			}
		}
		if results == 0 && texts > 0 {
			n = 0
		}
		n += results
	}
	return n
}

func textPart(text string) map[string]any { return map[string]any{"text": text} }

// write answers with one model content holding part: as a single SSE frame
// (`data: <GenerateContentResponse>`) for a stream, else as JSON.
func (m *Gemini) write(w http.ResponseWriter, stream bool, part map[string]any) {
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "mock-model",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	sse := newSSEWriter(w)
	sse.event("", resp)
	if sse.err != nil {
		m.logf("reply: %v", sse.err)
	}
}

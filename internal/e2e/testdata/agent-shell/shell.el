;;; shell.el --- agent-shell itself, through the proxy, on the config doctor printed  -*- lexical-binding: t; -*-

;; Loads agent-shell (from the checkouts $AGENT_SHELL_DIR, $ACP_EL_DIR and
;; $SHELL_MAKER_DIR) and the `setq' doctor printed for it ($CONFIG), starts
;; a Codex shell as M-x agent-shell-openai-start-codex does (its default
;; login authentication; with START=claude, a Claude shell as
;; M-x agent-shell-anthropic-start-claude-code does, with the key
;; $ANTHROPIC_API_KEY), answers every permission request with its
;; allow-once option (agent-shell's own agent-shell-permission-allow-always),
;; waits for its session, submits $PROMPT as a user
;; would at the prompt, waits for the turn to end, and prints the shell
;; buffer: all its text, then only what is visible (tool calls start
;; collapsed, under a collapsed activity header; expanded with EXPAND=1:
;; agent-shell-tool-use-expand-by-default and
;; agent-shell-activity-group-expand-by-default).
;; Exits non-zero when no session starts or the turn does not end within
;; $WAIT seconds.

(dolist (var '("SHELL_MAKER_DIR" "ACP_EL_DIR" "AGENT_SHELL_DIR"))
  (add-to-list 'load-path (getenv var)))
(require 'agent-shell)
(load (getenv "CONFIG") nil t)
(setq agent-shell-show-config-icons nil
      agent-shell-header-style 'text
      agent-shell-openai-authentication (agent-shell-openai-make-authentication :login t)
      agent-shell-tool-use-expand-by-default (equal (getenv "EXPAND") "1")
      agent-shell-activity-group-expand-by-default (equal (getenv "EXPAND") "1")
      agent-shell-permission-responder-function #'agent-shell-permission-allow-always)
(when (equal (getenv "START") "claude")
  (setq agent-shell-anthropic-authentication
        (agent-shell-anthropic-make-authentication :api-key (getenv "ANTHROPIC_API_KEY"))))

(defvar shell-test-wait (string-to-number (or (getenv "WAIT") "120")))

(defun shell-test-until (what pred)
  "Wait until PRED holds, or exit saying WHAT did not happen."
  (let ((deadline (+ (float-time) shell-test-wait)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (princ (format "timeout: %s\n" what))
        (shell-test-print)
        (kill-emacs 2))
      (accept-process-output nil 0.1))))

(defvar shell-test-buffer nil)

(defun shell-test-visible (start end)
  "The text between START and END that is not invisible."
  (let ((out "") (pos start))
    (while (< pos end)
      (let ((next (next-single-char-property-change pos 'invisible nil end)))
        (unless (invisible-p pos)
          (setq out (concat out (buffer-substring-no-properties pos next))))
        (setq pos next)))
    out))

(defun shell-test-print ()
  (when (buffer-live-p shell-test-buffer)
    (with-current-buffer shell-test-buffer
      (princ "=== buffer\n")
      (princ (buffer-substring-no-properties (point-min) (point-max)))
      (princ "\n=== visible\n")
      (princ (shell-test-visible (point-min) (point-max)))
      (princ "\n=== end\n"))))

(setq shell-test-buffer (agent-shell-start :config (if (equal (getenv "START") "claude")
                                                         (agent-shell-anthropic-make-claude-code-config)
                                                       (agent-shell-openai-make-codex-config))))
(shell-test-until "a session"
                  (lambda () (with-current-buffer shell-test-buffer
                               (map-nested-elt (agent-shell--state) '(:session :id)))))
(princ (format "session=%s\n" (with-current-buffer shell-test-buffer
                                (map-nested-elt (agent-shell--state) '(:session :id)))))
(shell-test-until "the prompt"
                  (lambda () (with-current-buffer shell-test-buffer (not (shell-maker-busy)))))
(agent-shell-insert :text (getenv "PROMPT") :submit t :shell-buffer shell-test-buffer)
(shell-test-until "the turn's start"
                  (lambda () (with-current-buffer shell-test-buffer (shell-maker-busy))))
(shell-test-until "the turn's end"
                  (lambda () (with-current-buffer shell-test-buffer (not (shell-maker-busy)))))
(shell-test-print)
(kill-emacs 0)

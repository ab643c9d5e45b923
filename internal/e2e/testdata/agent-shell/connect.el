;;; connect.el --- agent-shell's ACP layer on the command doctor printed  -*- lexical-binding: t; -*-

;; Loads the `setq' doctor printed for agent-shell ($CONFIG), then does
;; what agent-shell does to start a Codex shell with its default (login)
;; authentication: acp.el's client (from the checkout $ACP_EL_DIR) runs the
;; variable's car with its cdr as arguments, with OPENAI_API_KEY emptied and
;; DEFAULT_AUTH_REQUEST set, sends initialize and session/new (agent-shell
;; does not authenticate Codex first), and prints the session id.  Exits
;; non-zero on any error.

(add-to-list 'load-path (getenv "ACP_EL_DIR"))
(require 'acp)
(load (getenv "CONFIG") nil t)

(let* ((command agent-shell-openai-codex-acp-command)
       (client (acp-make-client
                :command (car command)
                :command-params (cdr command)
                :environment-variables
                (list "OPENAI_API_KEY="
                      (concat "DEFAULT_AUTH_REQUEST="
                              (json-serialize '((methodId . "chat-gpt")))))))
       (init (acp-send-request
              :client client :sync t
              :request (acp-make-initialize-request
                        :protocol-version 1
                        :read-text-file-capability t
                        :write-text-file-capability t)))
       (session (acp-send-request
                 :client client :sync t
                 :request (acp-make-session-new-request :cwd default-directory))))
  (princ (format "agent=%s\n" (map-nested-elt init '(agentInfo name))))
  (princ (format "session=%s\n" (map-elt session 'sessionId)))
  (acp-shutdown :client client)
  (kill-emacs (if (map-elt session 'sessionId) 0 1)))

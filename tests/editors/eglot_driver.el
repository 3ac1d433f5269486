;;; eglot_driver.el --- drive Emacs + eglot in batch mode against heredoc-lsp -*- lexical-binding: t -*-
;; The configuration under test (the snippet from docs/editors.md) has been loaded already.  Opens
;; `heredoc-test-file', waits for flymake to show the server's diagnostics, then writes them as JSON to
;; `heredoc-test-out' and exits.
(defvar heredoc-test-file)
(defvar heredoc-test-out)
(defvar heredoc-test-root)

(setq project-find-functions (list (lambda (_dir) (cons 'transient heredoc-test-root))))
(setq eglot-sync-connect t)

(defun heredoc-test--position (pos)
  (save-excursion
    (goto-char pos)
    ;; Characters from the line start (current-column would count display width: an emoji is 2 wide).
    (list (1- (line-number-at-pos)) (- (point) (line-beginning-position)))))

(defun heredoc-test--write (alist)
  (with-temp-file heredoc-test-out
    (insert (json-encode alist))))

(condition-case err
    (progn
      (find-file heredoc-test-file)
      ;; eglot-ensure connects after the next command; batch mode has none, so run the hook by hand.
      (run-hooks 'post-command-hook)
      (let ((tries 0))
        (while (and (null (flymake-diagnostics)) (< tries 300))
          (accept-process-output nil 0.05)
          (when (and (fboundp 'flymake-start) (zerop (% tries 20))) (flymake-start))
          (setq tries (1+ tries))))
      (heredoc-test--write
       `((mode . ,(symbol-name major-mode))
         (managed . ,(if (bound-and-true-p eglot--managed-mode) t :json-false))
         (diagnostics
          . ,(vconcat
              (mapcar (lambda (d)
                        `((beg . ,(vconcat (heredoc-test--position (flymake-diagnostic-beg d))))
                          (end . ,(vconcat (heredoc-test--position (flymake-diagnostic-end d))))
                          (type . ,(format "%s" (flymake-diagnostic-type d)))
                          (text . ,(flymake-diagnostic-text d))))
                      (flymake-diagnostics)))))))
  (error (heredoc-test--write `((error . ,(format "%S" err))))))
(kill-emacs 0)

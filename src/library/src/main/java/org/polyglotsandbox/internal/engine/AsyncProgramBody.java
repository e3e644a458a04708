package org.polyglotsandbox.internal.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

/**
 * The body of the async function a JavaScript program with top-level {@code await} runs as, returning
 * the program's last expression as a REPL would: {@code const x = await f();\nx + 2} gives {@code x + 2}.
 *
 * <p>The last top-level statement is found by a small lexer (strings, template literals, comments,
 * regular expressions, brackets) and checked with the engine's own parser: the text before it must
 * parse as statements, the statement itself as an expression, and the boundary between them must be
 * one the program's own grammar has. A boundary is certain after a {@code ;}; after a line break or a
 * {@code }}, only if the statement's first character cannot continue the one before it ({@code (},
 * {@code [}, a template, an operator), because there automatic semicolon insertion may not apply. A
 * statement that starts like a declaration ({@code {}, {@code function}, {@code class}, {@code let},
 * {@code async function}) is a declaration, never an expression. Whenever anything is in doubt, the
 * program runs as the plain body, whose value is what it {@code return}s, as before.
 */
final class AsyncProgramBody {
  /** The function head; on the program's first line, so that frames keep the program's line numbers. */
  static final String HEAD = "(async () => {";
  static final String TAIL = "\n})()";

  /** Parse checks tried at most per program: each parses (part of) the program once more. */
  private static final int MAX_PARSES = 12;

  private AsyncProgramBody() {}

  /** The program as a plain async function body: its value is what it returns. */
  static String plain(String code) {
    return HEAD + code + TAIL;
  }

  /**
   * The program as an async function body that returns its last expression statement's value, or
   * {@code null} where it has none (it ends in a declaration, a {@code return}, a loop...) or where the
   * lexer or the parser leaves any doubt about where that statement starts.
   *
   * @param parses whether a text parses as a JavaScript script (no code runs)
   */
  static String returningLastExpression(String code, Predicate<String> parses) {
    Scan scan = Scan.of(code);
    if (scan == null || scan.lastTokenEnd < 0) {
      return null;
    }
    int end;
    String trailer;
    if (scan.lastTokenIsSemicolon) {
      end = scan.lastTokenStart;
      trailer = code.substring(scan.lastTokenStart + 1);
    } else {
      end = scan.lastTokenEnd;
      trailer = code.substring(end);
    }
    int parsed = 0;
    for (int i = scan.starts.size() - 1; i >= 0 && parsed < MAX_PARSES; i--) {
      Start start = scan.starts.get(i);
      if (start.at >= end) {
        continue;
      }
      String statement = code.substring(start.at, end);
      if (startsADeclaration(statement) || !start.afterSemicolon && mayContinue(statement.charAt(0))) {
        continue;
      }
      String head = code.substring(0, start.at);
      parsed++;
      if (!parses.test("(async () => (\n" + statement + "\n))")) {
        continue;
      }
      parsed++;
      if (!parses.test(HEAD + head + TAIL)) {
        continue;
      }
      // A line comment at the end of the statement must not swallow the closing parenthesis.
      return HEAD + head + "return (" + statement + "\n);" + trailer + TAIL;
    }
    return null;
  }

  /**
   * Whether a statement starting with {@code c} after a line break may be the continuation of the one
   * before it: a call, an index, a template, a member access or a binary operator.
   */
  private static boolean mayContinue(char c) {
    return "([`+-*/%,.?=<>&|^:".indexOf(c) >= 0;
  }

  /** The starts an expression statement may not have (ECMAScript's lookahead restriction). */
  private static boolean startsADeclaration(String statement) {
    return statement.charAt(0) == '{' || startsWithWord(statement, "function") || startsWithWord(statement, "class")
        || startsWithWord(statement, "let")
        || startsWithWord(statement, "async") && startsWithWord(statement.substring(5).stripLeading(), "function");
  }

  private static boolean startsWithWord(String text, String word) {
    return text.startsWith(word) && (text.length() == word.length() || !isIdentifierPart(text.charAt(word.length())));
  }

  private static boolean isIdentifierPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c > 0x7f;
  }

  /** Where a top-level statement may start, and whether a {@code ;} ends what comes before it. */
  private record Start(int at, boolean afterSemicolon) {}

  /** What the lexer learnt about the program's top level. */
  private static final class Scan {
    final List<Start> starts = new ArrayList<>();
    int lastTokenStart = -1;
    int lastTokenEnd = -1;
    boolean lastTokenIsSemicolon;

    private static final String REGEX_AFTER_WORDS =
        " return typeof instanceof in of new delete void throw case do else yield await ";

    /** The scan, or {@code null} where the lexer could not follow the program. */
    static Scan of(String code) {
      Scan scan = new Scan();
      // '(' '[' '{' for brackets, 'T' for a template's ${ ... } substitution.
      Deque<Character> open = new ArrayDeque<>();
      int n = code.length();
      int i = 0;
      boolean lineBreak = true;
      boolean afterSemicolon = true;
      boolean afterBlockEnd = false;
      String previous = ""; // the previous significant token, or "" at the start
      while (i < n) {
        char c = code.charAt(i);
        if (c == '\n' || c == '\r' || c == '\u2028' || c == '\u2029') {
          lineBreak = true;
          i++;
          continue;
        }
        if (Character.isWhitespace(c) || c == '\ufeff') {
          i++;
          continue;
        }
        if (c == '/' && i + 1 < n && code.charAt(i + 1) == '/') {
          while (i < n && code.charAt(i) != '\n' && code.charAt(i) != '\r') {
            i++;
          }
          continue;
        }
        if (c == '/' && i + 1 < n && code.charAt(i + 1) == '*') {
          int close = code.indexOf("*/", i + 2);
          if (close < 0) {
            return null;
          }
          String comment = code.substring(i, close);
          if (comment.indexOf('\n') >= 0 || comment.indexOf('\r') >= 0) {
            lineBreak = true;
          }
          i = close + 2;
          continue;
        }
        int start = i;
        if (open.isEmpty() && (lineBreak || afterSemicolon || afterBlockEnd)) {
          scan.starts.add(new Start(start, afterSemicolon));
        }
        lineBreak = false;
        afterSemicolon = false;
        afterBlockEnd = false;
        if (c == '\'' || c == '"') {
          i = skipString(code, i);
        } else if (c == '`') {
          i = skipTemplate(code, i + 1, open);
        } else if (c == '/') {
          if (regexMayFollow(previous)) {
            i = skipRegex(code, i);
          } else {
            i++;
          }
        } else if (c == '(' || c == '[' || c == '{') {
          open.push(c);
          i++;
        } else if (c == ')' || c == ']') {
          if (open.isEmpty() || open.pop() != (c == ')' ? '(' : '[')) {
            return null;
          }
          i++;
        } else if (c == '}') {
          if (open.isEmpty()) {
            return null;
          }
          char opened = open.pop();
          if (opened == 'T') {
            i = skipTemplate(code, i + 1, open);
          } else if (opened != '{') {
            return null;
          } else {
            afterBlockEnd = open.isEmpty();
            i++;
          }
        } else if (c == ';') {
          afterSemicolon = open.isEmpty();
          i++;
        } else if (isIdentifierPart(c) || c == '#' || c == '\\') {
          while (i < n && (isIdentifierPart(code.charAt(i)) || code.charAt(i) == '#' || code.charAt(i) == '\\'
              || code.charAt(i) == '.' && start < n && Character.isDigit(code.charAt(start)))) {
            i++;
          }
        } else {
          i++;
        }
        if (i < 0) {
          return null;
        }
        previous = code.substring(start, Math.min(i, start + 16));
        scan.lastTokenStart = start;
        scan.lastTokenEnd = i;
        scan.lastTokenIsSemicolon = c == ';' && open.isEmpty();
      }
      return open.isEmpty() ? scan : null;
    }

    /** Whether a {@code /} after {@code previous} starts a regular expression rather than a division. */
    private static boolean regexMayFollow(String previous) {
      if (previous.isEmpty()) {
        return true;
      }
      char last = previous.charAt(previous.length() - 1);
      if (isIdentifierPart(last)) {
        return REGEX_AFTER_WORDS.contains(" " + previous + " ");
      }
      return last != ')' && last != ']' && last != '}' && last != '\'' && last != '"' && last != '`';
    }

    /** The index after the string starting at {@code i}, or -1 if it does not end on its line. */
    private static int skipString(String code, int i) {
      char quote = code.charAt(i);
      for (int j = i + 1; j < code.length(); j++) {
        char c = code.charAt(j);
        if (c == '\\') {
          j++;
        } else if (c == quote) {
          return j + 1;
        } else if (c == '\n' || c == '\r') {
          return -1;
        }
      }
      return -1;
    }

    /**
     * The index after the template text starting at {@code i} (just after a backtick or a substitution's
     * closing brace): past the closing backtick, or past a {@code ${}, with the substitution pushed.
     */
    private static int skipTemplate(String code, int i, Deque<Character> open) {
      for (int j = i; j < code.length(); j++) {
        char c = code.charAt(j);
        if (c == '\\') {
          j++;
        } else if (c == '`') {
          return j + 1;
        } else if (c == '$' && j + 1 < code.length() && code.charAt(j + 1) == '{') {
          open.push('T');
          return j + 2;
        }
      }
      return -1;
    }

    /** The index after the regular expression literal (and its flags) starting at {@code i}, or -1. */
    private static int skipRegex(String code, int i) {
      boolean inClass = false;
      for (int j = i + 1; j < code.length(); j++) {
        char c = code.charAt(j);
        if (c == '\\') {
          j++;
        } else if (c == '\n' || c == '\r') {
          return -1;
        } else if (c == '[') {
          inClass = true;
        } else if (c == ']') {
          inClass = false;
        } else if (c == '/' && !inClass) {
          int k = j + 1;
          while (k < code.length() && isIdentifierPart(code.charAt(k))) {
            k++;
          }
          return k;
        }
      }
      return -1;
    }
  }
}

package org.polyglotsandbox;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a model that knows only a code tool's description writes on first contact, asked for the unit
 * prices of a widget and a gadget, the price of a product that does not exist, and the rows of
 * {@code sales.csv}: an async program that calls the host's price tool for two products at once, catches
 * the failed call as the description's error class, and reads the mounted file.
 *
 * <p>Every name the program uses is read from the description: the language, how a host tool is called
 * and what it throws, which tool gives prices and the name of its argument (from its schema), the
 * mount, how a JavaScript program reads a file, and how an async program gives its value. A description
 * that stops saying one of them fails here, naming what it no longer says. The program's value is
 * {@code {widget, gadget, failed, rows}}. Shared by the agent adapters' first-contact tests.
 */
public final class ProgramFromDescription {
  private static final JsonFactory JSON = new JsonFactory();
  private static final String MISSING = "no-such-product";

  private ProgramFromDescription() {}

  /**
   * The policy of a first-contact sandbox: both languages, {@code guest-samples/data} at {@code /data}, the
   * application's {@code shop.unitPrice} tool.
   */
  public static Policy policy() {
    return Policy.builder()
        .allowLanguages(Language.JAVASCRIPT, Language.PYTHON)
        .mount(Mount.readOnly(Path.of("guest-samples/data"), "/data"))
        .allowTools("shop.unitPrice")
        // A cold import of asyncio takes GraalPy seconds of CPU; the Python case took 26 s with the load
        // at 9 on two cores.
        .limits(Limits.builder().wallTime(Duration.ofMinutes(2)).maxCpuTime(Duration.ofSeconds(60)).build())
        .build();
  }

  /** The program a model that read only {@code description} writes. */
  public static String write(String description) {
    boolean js = find(description, "^Runs (JavaScript|Python)", "which language it runs").group(1).equals("JavaScript");
    Matcher convention = find(description,
        "Host tools, called as tools\\.NAME\\((\\{\\.\\.\\.\\}|key=value)\\) and returning a value, a failure"
            + " (?:thrown|raised) as ([A-Za-z_]\\w*): ", "how a host tool is called and how it fails");
    String style = convention.group(1);
    String error = convention.group(2);
    Matcher priceTool = find(description,
        "(?:: |; )([A-Za-z_$][\\w$.]*) \\(([^()]*\\bprice\\b[^()]*)\\), arguments (\\{.*?\\})(?=; [A-Za-z_$][\\w$.]* \\(|\\. Limits per call)",
        "a host tool that gives a price, with its arguments' schema");
    String tool = priceTool.group(1);
    String argument = requiredArgument(priceTool.group(3));
    String mount = find(description, "Files: (/\\S*) \\(read-only\\)", "a read-only mount").group(1);
    String csv = mount + "/sales.csv";
    if (js) {
      String read = find(description, "read a file with ([A-Za-z_$][\\w$]*)\\(path\\)", "how to read a file").group(1);
      find(description, "with top-level await (its value is still its last expression's)",
          "how a program with top-level await gives its value");
      String call = "tools." + tool + "(" + style.replace("...", argument + ": %s") + ")";
      return """
          const [widget, gadget] = await Promise.all(["widget", "gadget"].map(async (p) => %s));
          let failed = null;
          try {
            %s;
          } catch (e) {
            if (!(e instanceof %s)) { throw e; }
            failed = e.message;
          }
          const rows = %s("%s").trim().split("\\n").length - 1;
          ({widget, gadget, failed, rows});
          """.formatted(call.formatted("p"), call.formatted("\"" + MISSING + "\""), error, read, csv);
    }
    String main = find(description, "a coroutine as its last expression \\(such as (\\w+)\\(\\)\\) is run to its end",
        "how an async program gives its value").group(1);
    find(description, "(tool calls return their values at once, not awaitables)", "whether a tool call is awaited");
    String call = "tools." + tool + "(" + style.replace("key=value", argument + "=%s") + ")";
    return """
        import asyncio

        async def price(product):
            return %s

        async def %s():
            widget, gadget = await asyncio.gather(price('widget'), price('gadget'))
            try:
                %s
                failed = None
            except %s as e:
                failed = str(e)
            with open('%s') as f:
                rows = len(f.read().strip().splitlines()) - 1
            return {'widget': widget, 'gadget': gadget, 'failed': failed, 'rows': rows}

        %s()
        """.formatted(call.formatted("product"), main, call.formatted("'" + MISSING + "'"), error, csv, main);
  }

  /** The model's answer from the program's value, as JSON. */
  public static String answer(String valueJson) {
    Map<String, String> v = flatObject(valueJson);
    return "A widget costs " + v.get("widget") + " euros and a gadget " + v.get("gadget") + "; " + MISSING + ": "
        + v.get("failed") + "; sales.csv has " + v.get("rows") + " rows.";
  }

  /** The fields of a JSON object whose values are scalars, as text. */
  private static Map<String, String> flatObject(String json) {
    Map<String, String> fields = new HashMap<>();
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new AssertionError("not a JSON object: " + json);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (!p.nextToken().isScalarValue()) {
          throw new AssertionError("field " + name + " is not a scalar: " + json);
        }
        fields.put(name, p.getText());
      }
    } catch (java.io.IOException e) {
      throw new AssertionError("the program's value is not the JSON it should be: " + json, e);
    }
    return fields;
  }

  private static String requiredArgument(String schema) {
    Matcher required = Pattern.compile("\"required\"\\s*:\\s*\\[\\s*\"([^\"]+)\"\\s*]").matcher(schema);
    if (!required.find()) {
      throw new AssertionError("the price tool's schema does not name one required argument: " + schema);
    }
    return required.group(1);
  }

  private static Matcher find(String description, String regex, String what) {
    Matcher m = Pattern.compile(regex).matcher(description);
    if (!m.find()) {
      throw new AssertionError("the description no longer says " + what + ":\n" + description);
    }
    return m;
  }
}

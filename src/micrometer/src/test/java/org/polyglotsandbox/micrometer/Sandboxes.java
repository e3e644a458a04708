package org.polyglotsandbox.micrometer;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.polyglotsandbox.Language;
import org.polyglotsandbox.Limits;
import org.polyglotsandbox.Policy;
import org.polyglotsandbox.PolyglotSandbox;
import org.polyglotsandbox.Tool;
import org.polyglotsandbox.ToolException;

/** The tests' sandboxes: both languages, and four tools: {@code add}, {@code refuse} (always fails), {@code hold} and {@code trace}. */
final class Sandboxes {
  /** What {@code hold} waits for, at most 30 s. */
  static final AtomicReference<CountDownLatch> HELD = new AtomicReference<>(new CountDownLatch(0));

  /** What {@code trace} answers: the tests set it to read the handler thread's current span. */
  static volatile Supplier<Object> TRACE = () -> null;

  private Sandboxes() {}

  static Policy policy() {
    return Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder()
        .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(30)).build())
        .allowTools("add", "refuse", "hold", "trace")
        .build();
  }

  static PolyglotSandbox.Builder withTools(PolyglotSandbox.Builder b) {
    return b.policy(policy())
        .tool(Tool.builder("add").parameters("""
            {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
             "required": ["a", "b"]}""")
            .handler(args -> (Long) args.get("a") + (Long) args.get("b")).build())
        .tool(Tool.builder("refuse").handler(args -> {
          throw new ToolException("no such customer");
        }).build())
        .tool(Tool.builder("hold").timeout(Duration.ofSeconds(40)).handler(args -> HELD.get().await(30, TimeUnit.SECONDS))
            .build())
        .tool(Tool.builder("trace").handler(args -> TRACE.get()).build());
  }
}

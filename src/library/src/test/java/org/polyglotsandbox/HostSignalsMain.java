package org.polyglotsandbox;

import java.time.Duration;
import java.util.Map;

/**
 * The forked JVM of {@link HostSignalsForkedTest}. With {@code control} it runs no guest; with
 * {@code after} it first runs guests that install handlers for SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2
 * and try to arm timers; with {@code during} it then also keeps one such guest running. It prints
 * {@code READY} when the signal may be sent, {@code HOOK} from its shutdown hook, and {@code ALIVE}
 * if it is still running 20 s later.
 */
public final class HostSignalsMain {
  static final String GUEST = """
      import signal, time
      seen = []
      for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
          signal.signal(s, lambda n, f: seen.append(n))
      for arm in (lambda: signal.setitimer(signal.ITIMER_REAL, 0.2, 0.2), lambda: signal.alarm(1),
                  lambda: signal.setitimer(signal.ITIMER_PROF, 0.2)):
          try:
              arm()
          except PermissionError:
              pass
      if keep_running:
          tools.ready()
          time.sleep(60)
      seen
      """;

  private HostSignalsMain() {}

  public static void main(String[] args) throws Exception {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("HOOK")));
    String mode = args[0];
    PolyglotSandbox sandbox = null;
    if (!mode.equals("control")) {
      Tool ready = Tool.builder("ready").parameters("{\"type\": \"object\"}").inline()
          .handler(a -> {
            System.out.println("READY");
            return null;
          }).build();
      Policy policy = Policy.computeOnly(Language.PYTHON).toBuilder().allowTools("ready")
          .limits(Limits.builder().wallTime(Duration.ofSeconds(90)).build()).build();
      sandbox = PolyglotSandbox.builder().policy(policy).tool(ready).build();
      for (int i = 0; i < 2; i++) {
        ExecutionResult r = sandbox.run(org.polyglotsandbox.Script.of(Language.PYTHON, GUEST)
            .withInputs(Map.of("keep_running", false)));
        System.out.println("RUN " + r.outcome() + " " + r.value());
      }
    }
    if (mode.equals("during")) {
      sandbox.runAsync(org.polyglotsandbox.Script.of(Language.PYTHON, GUEST).withInputs(Map.of("keep_running", true)));
    } else {
      System.out.println("READY");
    }
    Thread.sleep(20_000);
    System.out.println("ALIVE");
    System.exit(0);
  }
}

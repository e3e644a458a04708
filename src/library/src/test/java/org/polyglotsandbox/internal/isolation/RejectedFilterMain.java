package org.polyglotsandbox.internal.isolation;

/** Installs a program the kernel must reject (a load with no return) and prints what {@link NativeSeccomp} said. */
public final class RejectedFilterMain {
  private RejectedFilterMain() {}

  public static void main(String[] args) {
    try {
      NativeSeccomp.install(new byte[] {0x20, 0, 0, 0, 0, 0, 0, 0});
      System.out.println("installed");
    } catch (RuntimeException e) {
      System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}

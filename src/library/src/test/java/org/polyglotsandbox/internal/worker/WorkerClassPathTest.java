package org.polyglotsandbox.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a worker's class path is found: the URLs class loaders give (Spring Boot's nested jars among them),
 * module path folders, and the private cache the nested jars are copied into. The end-to-end check, with
 * real applications of each packaging, is {@code WorkerLaunchModesTest}.
 */
class WorkerClassPathTest {
  @Test
  void locations_ofSpringBootsNestedJars_andOfPlainFiles_areUnderstood() {
    assertThat(WorkerClassPath.locationOf("jar:nested:/srv/my%20app/app.jar/!BOOT-INF/lib/x-1.0.jar!/"))
        .isEqualTo(new WorkerClassPath.Location(Path.of("/srv/my app/app.jar"), "BOOT-INF/lib/x-1.0.jar"));
    assertThat(WorkerClassPath.locationOf("jar:file:/srv/app.jar!/BOOT-INF/lib/x-1.0.jar!/"))
        .as("Spring Boot before 3.2")
        .isEqualTo(new WorkerClassPath.Location(Path.of("/srv/app.jar"), "BOOT-INF/lib/x-1.0.jar"));
    assertThat(WorkerClassPath.locationOf("jar:nested:/srv/app.jar/!BOOT-INF/classes/!/"))
        .isEqualTo(new WorkerClassPath.Location(Path.of("/srv/app.jar"), "BOOT-INF/classes/"));
    assertThat(WorkerClassPath.locationOf("jar:file:/srv/lib/x.jar!/"))
        .isEqualTo(new WorkerClassPath.Location(Path.of("/srv/lib/x.jar"), null));
    assertThat(WorkerClassPath.locationOf("file:/srv/classes/"))
        .isEqualTo(new WorkerClassPath.Location(Path.of("/srv/classes"), null));
    assertThat(WorkerClassPath.locationOf("jrt:/java.base")).isNull();
    assertThat(WorkerClassPath.locationOf("jar:nested:/srv/app.jar/!BOOT-INF/lib/%zz.jar!/")).isNull();
  }

  @Test
  void aModulePathFolder_becomesTheJarsAndExplodedModulesInIt(@TempDir Path dir) throws IOException {
    Path mods = Files.createDirectories(dir.resolve("mods"));
    Files.writeString(mods.resolve("b.jar"), "");
    Files.writeString(mods.resolve("a.jar"), "");
    Files.writeString(mods.resolve("notes.txt"), "");
    Files.createDirectories(mods.resolve("exploded"));
    Files.writeString(mods.resolve("exploded/module-info.class"), "");
    Files.createDirectories(mods.resolve("plain-folder"));
    Path module = Files.createDirectories(dir.resolve("app"));
    Files.writeString(module.resolve("module-info.class"), "");
    Path jar = Files.writeString(dir.resolve("c.jar"), "");

    List<Path> expanded = WorkerClassPath.expandModulePath(String.join(java.io.File.pathSeparator,
        mods.toString(), module.toString(), jar.toString()));

    assertThat(expanded).containsExactly(mods.resolve("a.jar"), mods.resolve("b.jar"), mods.resolve("exploded"),
        module, jar);
  }

  @Test
  void aNestedJar_isCopiedOnce_readOnly_andNamedByItsRecord(@TempDir Path dir) throws IOException {
    byte[] content = bytes(1 << 20, 1);
    Path outer = outerJar(dir.resolve("app.jar"), Map.of("BOOT-INF/lib/lib-1.0.jar", content));
    Path cache = cache(dir);
    List<Path> copied = new ArrayList<>();
    Map<Path, ZipFile> opened = new HashMap<>();
    try {
      Path copy = WorkerClassPath.extract(opened, outer, "BOOT-INF/lib/lib-1.0.jar", cache, copied);

      assertThat(copy.getFileName()).hasToString("lib-1.0.jar");
      assertThat(copy.getParent().getFileName().toString()).isEqualTo("lib-1.0-%08x-%d".formatted(crc(content),
          content.length));
      assertThat(Files.readAllBytes(copy)).isEqualTo(content);
      assertThat(copied).containsExactly(copy);
      if (posix(copy)) {
        assertThat(Files.getPosixFilePermissions(copy)).containsExactly(PosixFilePermission.OWNER_READ);
      }

      copied.clear();
      assertThat(WorkerClassPath.extract(opened, outer, "BOOT-INF/lib/lib-1.0.jar", cache, copied)).isEqualTo(copy);
      assertThat(copied).as("already there").isEmpty();
      assertThat(WorkerClassPath.extract(opened, outer, "BOOT-INF/lib/missing.jar", cache, copied)).isNull();
    } finally {
      for (ZipFile z : opened.values()) {
        z.close();
      }
    }
  }

  @Test
  void aDamagedCopy_isReplaced(@TempDir Path dir) throws IOException {
    byte[] content = bytes(100_000, 2);
    Path outer = outerJar(dir.resolve("app.jar"), Map.of("BOOT-INF/lib/lib.jar", content));
    Path cache = cache(dir);
    Map<Path, ZipFile> opened = new HashMap<>();
    try {
      Path copy = WorkerClassPath.extract(opened, outer, "BOOT-INF/lib/lib.jar", cache, new ArrayList<>());
      copy.toFile().setWritable(true);
      try (OutputStream out = Files.newOutputStream(copy, StandardOpenOption.TRUNCATE_EXISTING)) {
        out.write(1);
      }

      assertThat(WorkerClassPath.extract(opened, outer, "BOOT-INF/lib/lib.jar", cache, new ArrayList<>()))
          .isEqualTo(copy);
      assertThat(Files.readAllBytes(copy)).isEqualTo(content);
    } finally {
      for (ZipFile z : opened.values()) {
        z.close();
      }
    }
  }

  @Test
  void jvmsCopyingTheSameJarAtOnce_endWithOneWholeCopy_andNoLeftovers(@TempDir Path dir) throws Exception {
    byte[] content = bytes(8 << 20, 3);
    Path outer = outerJar(dir.resolve("app.jar"), Map.of("BOOT-INF/lib/big.jar", content));
    Path cache = cache(dir);
    int copiers = 6;
    ExecutorService pool = Executors.newFixedThreadPool(copiers);
    try {
      List<Future<Path>> copies = new ArrayList<>();
      for (int i = 0; i < copiers; i++) {
        // Each with a ZipFile of its own, as separate JVMs would have.
        Callable<Path> copier = () -> {
          Map<Path, ZipFile> opened = new HashMap<>();
          try {
            return WorkerClassPath.extract(opened, outer, "BOOT-INF/lib/big.jar", cache, new ArrayList<>());
          } finally {
            for (ZipFile z : opened.values()) {
              z.close();
            }
          }
        };
        copies.add(pool.submit(copier));
      }
      Path first = copies.get(0).get();
      for (Future<Path> f : copies) {
        assertThat(f.get()).isEqualTo(first);
      }
      assertThat(Files.readAllBytes(first)).isEqualTo(content);
      try (Stream<Path> left = Files.list(cache)) {
        assertThat(left).containsExactly(first.getParent());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theCache_isMadePrivate(@TempDir Path dir) throws IOException {
    Path cache = dir.resolve("home/.cache/polyglot-sandbox/nested-jars");

    assertThat(WorkerClassPath.privateCache(cache)).isNull();

    assertThat(cache).isDirectory();
    if (posix(cache)) {
      assertThat(Files.getPosixFilePermissions(cache)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
      assertThat(Files.getPosixFilePermissions(cache.getParent()))
          .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    }
  }

  @Test
  void aCacheOthersMayWrite_isRefused(@TempDir Path dir) throws IOException {
    assumeThat(posix(dir)).as("POSIX permissions").isTrue();
    Path top = Files.createDirectories(dir.resolve("tmp/polyglot-sandbox-me"));
    Files.setPosixFilePermissions(top, PosixFilePermissions.fromString("rwxrwxrwx"));

    assertThat(WorkerClassPath.privateCache(top.resolve("nested-jars")))
        .contains(top.toString()).contains("may be written by others");
  }

  @Test
  void aCacheThatIsASymbolicLink_isRefused(@TempDir Path dir) throws IOException {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path top = Files.createDirectories(dir.resolve("tmp")).resolve("polyglot-sandbox-me");
    Files.createSymbolicLink(top, elsewhere);

    assertThat(WorkerClassPath.privateCache(top.resolve("nested-jars")))
        .contains(top.toString()).contains("symbolic link");
  }

  @Test
  void aCacheOfAnotherUser_isRefused(@TempDir Path dir) throws IOException {
    Path top = Files.createDirectories(dir.resolve("tmp/polyglot-sandbox-me"));
    UserPrincipal other;
    try {
      other = top.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
      Files.setOwner(top, other);
    } catch (IOException | UnsupportedOperationException e) {
      assumeThat(e).as("only a privileged user can give a directory away").isNull();
      return;
    }

    assertThat(WorkerClassPath.privateCache(top.resolve("nested-jars")))
        .contains(top.toString()).contains("belongs to " + other.getName());
  }

  private static Path cache(Path dir) {
    Path cache = dir.resolve("cache/polyglot-sandbox/nested-jars");
    assertThat(WorkerClassPath.privateCache(cache)).isNull();
    return cache;
  }

  /** A jar holding {@code nested} stored uncompressed, as Spring Boot stores its nested jars. */
  private static Path outerJar(Path file, Map<String, byte[]> nested) throws IOException {
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
      for (Map.Entry<String, byte[]> e : nested.entrySet()) {
        ZipEntry entry = new ZipEntry(e.getKey());
        entry.setMethod(ZipEntry.STORED);
        entry.setSize(e.getValue().length);
        entry.setCompressedSize(e.getValue().length);
        entry.setCrc(crc(e.getValue()));
        zip.putNextEntry(entry);
        zip.write(e.getValue());
        zip.closeEntry();
      }
    }
    return file;
  }

  private static long crc(byte[] b) {
    CRC32 crc = new CRC32();
    crc.update(b);
    return crc.getValue();
  }

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static boolean posix(Path p) {
    return p.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}

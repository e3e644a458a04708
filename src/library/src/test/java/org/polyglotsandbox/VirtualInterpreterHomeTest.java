package org.polyglotsandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.polyglotsandbox.SandboxAssertions.assertThatRun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.polyglotsandbox.internal.filesystem.InterpreterFiles;

/**
 * The interpreter's home: a Python guest sees GraalPy's home at
 * {@link Policy#PYTHON_HOME_PATH} and nowhere else. The host directory GraalVM extracted it to, the host
 * user's name and home, the cache's version-hash directory name, and the host's inode, device, owner and
 * times of those files appear in nothing the guest can read: {@code sys}, modules and code objects,
 * tracebacks, warnings, error messages, real paths, {@code stat} results. The host path itself names
 * nothing in the run, and nothing around the virtual home is listable. JavaScript sees neither path.
 */
@SuppressWarnings("unchecked")
class VirtualInterpreterHomeTest {
  private static final String HOME = Policy.PYTHON_HOME_PATH;
  private static PolyglotSandbox sandbox;
  /** The host's GraalPy home, as configured and as real path. */
  private static List<Path> hostHomes;
  /** Substrings that would tell the guest something about the host's GraalPy cache or user. */
  private static List<String> hostFacts;

  @BeforeAll
  static void build() {
    sandbox = PolyglotSandbox.builder()
        .policy(Policy.computeOnly(Language.JAVASCRIPT, Language.PYTHON).toBuilder().mount(Mount.scratch("/scratch"))
            .limits(Limits.builder().wallTime(Duration.ofSeconds(60)).maxCpuTime(Duration.ofSeconds(30)).build())
            .build())
        .build();
    hostHomes = InterpreterFiles.locate().pythonHomes();
    assertThat(hostHomes.get(0)).as("build() has extracted GraalPy's home").isDirectory();
    Set<String> facts = new LinkedHashSet<>();
    for (Path home : hostHomes) {
      facts.add(home.toString());
      facts.add(home.getFileName().toString()); // the version hash
      facts.add(home.getParent().toString());
    }
    facts.add("org.graalvm.polyglot");
    facts.add("python-home");
    facts.add(System.getProperty("user.home"));
    facts.add("/" + System.getProperty("user.name") + "/");
    facts.add("/root");
    hostFacts = List.copyOf(facts);
  }

  @AfterAll
  static void close() {
    sandbox.close();
  }

  private static ExecutionResult python(String code) {
    ExecutionResult r = sandbox.run(Language.PYTHON, code);
    assertThatRun(r).isOk().leaksNoHostDetail();
    assertNoHostFact(r.stdout() + r.stderr() + r.value());
    return r;
  }

  /** Like {@link #python}, for a value that holds the standard library's own text (which names Java classes). */
  private static ExecutionResult pythonDump(String code) {
    ExecutionResult r = sandbox.run(Language.PYTHON, code);
    assertThatRun(r).isOk();
    assertNoHostFact(r.stdout() + r.stderr() + r.value());
    return r;
  }

  private static void assertNoHostFact(String text) {
    for (String fact : hostFacts) {
      assertThat(text).as("what the guest read names the host's %s", fact).doesNotContain(fact);
    }
  }

  @Test
  void sysAndEveryLoadedModule_nameOnlyTheVirtualHome() {
    ExecutionResult r = pythonDump("""
        import sys, os, json, textwrap, importlib.util, inspect, sysconfig, site, pathlib, pkgutil, __graalpython__
        import email.mime.text, collections.abc, http.client, argparse
        paths = {'prefix': sys.prefix, 'base_prefix': sys.base_prefix, 'exec_prefix': sys.exec_prefix,
                 'base_exec_prefix': sys.base_exec_prefix, 'graalpython.home': __graalpython__.home,
                 'os': os.__file__, 'json': json.__file__, 'json.spec': json.__spec__.origin,
                 'json.locations': json.__spec__.submodule_search_locations[0], 'json.path': json.__path__[0],
                 'find_spec': importlib.util.find_spec('textwrap').origin,
                 'find_spec.nested': importlib.util.find_spec('email.mime.text').origin,
                 'inspect.getfile': inspect.getfile(textwrap), 'inspect.getsourcefile': inspect.getsourcefile(json.dumps),
                 'co_filename': json.dumps.__code__.co_filename,
                 'class': inspect.getfile(json.JSONDecoder),
                 'realpath': os.path.realpath(json.__file__), 'resolve': str(pathlib.Path(textwrap.__file__).resolve()),
                 'abspath': os.path.abspath(os.__file__), 'stdlib': sysconfig.get_paths()['stdlib']}
        seen = []
        def walk(where, v, depth=0):
            if isinstance(v, str):
                seen.append(where + '=' + v)
            elif depth < 3 and isinstance(v, type(walk.__code__)):
                seen.append(where + '.co_filename=' + v.co_filename)
                for c in v.co_consts:
                    walk(where, c, depth + 1)
            elif depth < 2 and callable(getattr(v, '__code__', None)):
                walk(where, v.__code__, depth + 1)
            elif depth < 2 and isinstance(v, type):
                for k, x in list(vars(v).items()):
                    walk(where + '.' + k, x, depth + 1)
        for name, m in list(sys.modules.items()):
            for k, v in list(vars(m).items()):
                walk(name + '.' + k, v)
        for k in dir(sys):
            v = getattr(sys, k)
            seen.append('sys.' + k + '=' + repr(v)[:2000])
        seen.append(repr(sysconfig.get_paths()) + repr(sysconfig.get_config_vars()) + repr(site.getsitepackages()))
        seen.append(repr([m.module_finder.path for m in pkgutil.iter_modules() if hasattr(m.module_finder, 'path')][:50]))
        [paths, len(sys.modules), '\\n'.join(seen)]""");
    List<Object> v = (List<Object>) r.value();
    Map<String, Object> paths = (Map<String, Object>) v.get(0);
    assertThat(paths.get("prefix")).isEqualTo(HOME);
    assertThat(paths.get("os")).isEqualTo(HOME + "/lib/python3.12/os.py");
    assertThat(paths.get("json")).isEqualTo(HOME + "/lib/python3.12/json/__init__.py");
    assertThat(paths).allSatisfy((k, p) -> assertThat((String) p).as(k).startsWith(HOME));
    assertThat((Long) v.get(1)).as("loaded modules").isGreaterThan(100);
    assertThat((String) v.get(2)).contains(HOME + "/lib/python3.12").hasSizeGreaterThan(10_000);
  }

  @Test
  void tracebacksWarningsAndLinecache_nameOnlyTheVirtualHome() {
    ExecutionResult r = python("""
        import json, traceback, warnings, linecache, inspect, io
        out = {}
        def hook(pairs):
            out['stack'] = ''.join(traceback.format_stack())
            out['inspect'] = [f.filename for f in inspect.stack()]
            warnings.warn('probe', stacklevel=2)
            return dict(pairs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            json.loads('{"a": 1}', object_pairs_hook=hook)
        out['warning'] = [w.filename + ':' + str(w.message) for w in caught]
        out['formatted'] = [warnings.formatwarning(w.message, w.category, w.filename, w.lineno) for w in caught]
        try:
            json.loads('{')
        except ValueError as e:
            out['traceback'] = traceback.format_exc()
            out['frames'] = [f.filename for f in traceback.extract_tb(e.__traceback__)]
            buf = io.StringIO()
            traceback.print_exception(e, file=buf)
            out['printed'] = buf.getvalue()
        out['linecache'] = linecache.getline(json.__file__, 1)
        out['cached'] = [k for k in linecache.cache]
        out""");
    Map<String, Object> v = (Map<String, Object>) r.value();
    assertThat((String) v.get("traceback")).contains("File \"" + HOME + "/lib/python3.12/json/decoder.py\"");
    assertThat((List<String>) v.get("frames")).contains(HOME + "/lib/python3.12/json/__init__.py");
    assertThat((String) v.get("stack")).contains(HOME + "/lib/python3.12/json/");
    assertThat((List<String>) v.get("warning")).singleElement().asString().startsWith(HOME + "/lib/python3.12/json/");
    assertThat((List<String>) v.get("cached")).isNotEmpty().allSatisfy(k -> assertThat(k).doesNotStartWith("/root"));
  }

  @Test
  void anUncaughtErrorInTheStandardLibrary_framesNameTheVirtualHome() {
    ExecutionResult r = sandbox.run(Language.PYTHON, "import json\njson.loads('{')");
    assertThatRun(r).hasOutcome(Outcome.GUEST_ERROR).leaksNoHostDetail();
    String all = r.errorMessage().orElse("") + String.join("\n", r.guestStackTrace()) + r.stderr();
    assertThat(r.guestStackTrace()).as("frames in the standard library, by file name").contains("decoder.py:338 (decode)");
    ExecutionResult printed = sandbox.run(Language.PYTHON, "import json, traceback\ntry:\n    json.loads('{')\n"
        + "except ValueError:\n    traceback.print_exc()");
    assertThatRun(printed).isOk();
    assertThat(printed.stderr()).contains("File \"" + HOME + "/lib/python3.12/json/decoder.py\"");
    all += printed.stderr();
    assertNoHostFact(all);
  }

  @Test
  void everyRefusalInTheHome_namesOnlyTheVirtualHome() {
    ExecutionResult r = python("""
        import os, sys, json, shutil, traceback
        home = sys.prefix
        lib = os.path.dirname(os.__file__)
        out = []
        for name, f in [
                ('open missing', lambda: open(home + '/missing.py')), ('append', lambda: open(os.__file__, 'a')),
                ('create', lambda: open(lib + '/evil.py', 'x')), ('remove', lambda: os.remove(json.__file__)),
                ('mkdir', lambda: os.mkdir(home + '/x')), ('rmdir', lambda: os.rmdir(lib + '/json')),
                ('readlink', lambda: os.readlink(json.__file__)), ('chmod', lambda: os.chmod(json.__file__, 0o777)),
                ('rename in', lambda: os.rename(json.__file__, lib + '/j.py')),
                ('rename out', lambda: os.rename(json.__file__, '/scratch/j.py')),
                ('rename into', lambda: (open('/scratch/e.py', 'w').close(), os.rename('/scratch/e.py', lib + '/e.py'))),
                ('copy into', lambda: shutil.copy('/scratch/e.py', lib)),
                ('listdir missing', lambda: os.listdir(home + '/missing')), ('listdir file', lambda: os.listdir(json.__file__)),
                ('statvfs', lambda: os.statvfs(home)), ('utime', lambda: os.utime(json.__file__)),
                ('symlink', lambda: os.symlink('/scratch/e.py', lib + '/evil.py')),
                ('link', lambda: os.link(json.__file__, '/scratch/hard')), ('truncate', lambda: os.truncate(json.__file__, 0)),
                ('chdir file', lambda: os.chdir(json.__file__)), ('rmtree', lambda: shutil.rmtree(lib + '/json'))]:
            try:
                f()
                out.append(name + ': done')
            except OSError as e:
                out.append(name + ': ' + type(e).__name__ + ' ' + str(e) + ' ' + repr(e.filename) + ' '
                           + repr(e.filename2) + ' ' + traceback.format_exc())
        out""");
    List<String> v = (List<String>) r.value();
    assertThat(v).hasSize(21).noneMatch(s -> s.contains(": done") && !s.startsWith("rename into")
        && !s.startsWith("copy into"));
    assertThat(v).filteredOn(s -> s.startsWith("open missing")).singleElement().asString()
        .contains("FileNotFoundError", HOME + "/missing.py");
    assertThat(v).filteredOn(s -> s.startsWith("append")).singleElement().asString()
        .contains("PermissionError", HOME + "/lib/python3.12/os.py");
    assertThat(String.join("\n", v)).contains(HOME);
  }

  @Test
  void realPathsLinksAndListings_stayInsideTheVirtualHome() {
    ExecutionResult r = python("""
        import os, sys, json, glob, pathlib
        lib = os.path.dirname(os.__file__)
        out = {'realpath': os.path.realpath(lib + '/json/../json/__init__.py'),
               'realpath home': os.path.realpath(sys.prefix), 'resolve': str(pathlib.Path(lib).resolve()),
               'islink': os.path.islink(json.__file__), 'samefile': os.path.samefile(json.__file__, lib + '/json/__init__.py'),
               'samefile other': os.path.samefile(json.__file__, os.__file__),
               'scandir': sorted(e.path for e in os.scandir(sys.prefix)),
               'walk': [d for d, _, _ in os.walk(lib + '/json')],
               'glob': sorted(glob.glob(sys.prefix + '/lib/*')),
               'pathlib': sorted(str(p) for p in pathlib.Path(sys.prefix).iterdir()),
               'listdir': sorted(os.listdir(sys.prefix))}
        out""");
    Map<String, Object> v = (Map<String, Object>) r.value();
    assertThat(v).containsEntry("realpath", HOME + "/lib/python3.12/json/__init__.py")
        .containsEntry("realpath home", HOME).containsEntry("resolve", HOME + "/lib/python3.12")
        .containsEntry("islink", false).containsEntry("samefile", true).containsEntry("samefile other", false)
        .containsEntry("glob", List.of(HOME + "/lib/graalpy25.0", HOME + "/lib/python3.12"))
        .containsEntry("listdir", List.of("include", "lib", "native-image.properties"));
    assertThat((List<String>) v.get("scandir")).containsExactly(HOME + "/include", HOME + "/lib",
        HOME + "/native-image.properties");
    assertThat((List<String>) v.get("walk")).first().isEqualTo(HOME + "/lib/python3.12/json");
  }

  @Test
  void statOfInterpreterFiles_showsNoHostInodeDeviceOwnerOrTime() throws IOException {
    Path hostJson = hostHomes.get(0).resolve("lib/python3.12/json/__init__.py");
    Map<String, Object> host = Files.readAttributes(hostJson, "unix:ino,dev,uid,gid,lastModifiedTime,ctime");
    Map<String, Object> hostDir = Files.readAttributes(hostHomes.get(0), "unix:ino,dev,mode");
    ExecutionResult r = python("""
        import os, sys, json
        def s(st):
            return [st.st_ino, st.st_dev, st.st_uid, st.st_gid, int(st.st_mtime), int(st.st_ctime), int(st.st_atime),
                    st.st_mode, st.st_size, st.st_nlink]
        fd = os.open(json.__file__, os.O_RDONLY)
        try:
            f = s(os.fstat(fd))
        finally:
            os.close(fd)
        with open(json.__file__, 'rb') as fh:
            fo = s(os.fstat(fh.fileno()))
        {'stat': s(os.stat(json.__file__)), 'lstat': s(os.lstat(json.__file__)), 'fstat': f, 'fileobj': fo,
         'home': s(os.stat(sys.prefix)), 'again': s(os.stat(json.__file__)),
         'scandir': sorted(e.inode() for e in os.scandir(os.path.dirname(json.__file__))),
         'other': s(os.stat(os.__file__))}""");
    Map<String, Object> v = (Map<String, Object>) r.value();
    List<Long> stat = ((List<Object>) v.get("stat")).stream().map(o -> ((Number) o).longValue()).toList();
    long hostIno = ((Number) host.get("ino")).longValue();
    long hostDev = ((Number) host.get("dev")).longValue();
    long hostMtime = ((FileTime) host.get("lastModifiedTime")).toMillis() / 1000;
    for (String k : List.of("stat", "lstat", "fstat", "fileobj", "home", "again", "other")) {
      List<Long> s = ((List<Object>) v.get(k)).stream().map(o -> ((Number) o).longValue()).toList();
      assertThat(s.get(0)).as(k + " inode").isNotEqualTo(hostIno)
          .isNotEqualTo(((Number) hostDir.get("ino")).longValue());
      assertThat(s.get(1)).as(k + " device").isNotEqualTo(hostDev).isEqualTo(2L);
      assertThat(s.subList(2, 4)).as(k + " owner").containsExactly(0L, 0L);
      assertThat(s.subList(4, 7)).as(k + " times").containsOnly(946_684_800L).doesNotContain(hostMtime);
    }
    assertThat(v.get("again")).as("a file's inode is stable").isEqualTo(v.get("stat"));
    assertThat(v.get("fstat")).isEqualTo(v.get("stat"));
    assertThat(stat.get(0)).as("files differ by inode").isNotEqualTo(((List<Number>) v.get("other")).get(0).longValue());
    assertThat(stat.get(7)).as("a read-only 0644 file, whatever the host's umask").isEqualTo(0100644L);
    assertThat(((List<Number>) v.get("home")).get(7).longValue()).as("directories are 0755")
        .isEqualTo(040755L);
    assertThat(stat.get(8)).as("the size is the file's own").isEqualTo(Files.size(hostJson));
    assertThat((List<Object>) v.get("scandir")).doesNotContain(hostIno).doesNotHaveDuplicates();
  }

  @Test
  void theHostPathOfTheHome_isDeniedLikeAnyPathOutsideTheMounts() {
    String real = hostHomes.get(0).toString();
    ExecutionResult r = sandbox.run(Script.of(Language.PYTHON, """
        import os
        out = []
        for p in [real, real + '/lib/python3.12/json/__init__.py', real + '-other', '/etc/passwd']:
            for name, f in [('open', lambda: open(p).read(5)), ('listdir', lambda: os.listdir(p)),
                            ('stat', lambda: os.stat(p)), ('exists', lambda: os.path.exists(p)),
                            ('import', lambda: __import__('importlib.machinery').machinery.PathFinder.find_spec(
                                'json', [p + '/lib/python3.12']))]:
                try:
                    v = f()
                    out.append(name + ' ' + repr(v)[:20])
                except OSError as e:
                    out.append(name + ' ' + type(e).__name__)
        out""").withInputs(Map.of("real", real)));
    assertThatRun(r).isOk().recordedDenial(Operation.FILE_READ, real);
    List<String> v = (List<String>) r.value();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      expected.addAll(List.of("open PermissionError", "listdir PermissionError", "stat PermissionError",
          "exists False", "import None"));
    }
    assertThat(v).as("the real home answers as /etc/passwd does").isEqualTo(expected);
  }

  @Test
  void nothingAroundTheVirtualHome_isListable() {
    ExecutionResult r = python("""
        import os, sys
        out = []
        for p in ['/usr/lib', '/usr', '/', '/usr/lib/graalpy/..', '/usr/lib/graalpy/lib/../..', '/usr/lib/graalpy/lib/..']:
            try:
                out.append(p + ' ' + str(sorted(os.listdir(p))))
            except OSError as e:
                out.append(p + ' ' + type(e).__name__)
        for p in ['/usr', '/usr/lib']:
            try:
                os.stat(p)
                out.append(p + ' stat')
            except OSError as e:
                out.append(p + ' ' + type(e).__name__)
        out""");
    assertThat((List<String>) r.value()).containsExactly("/usr/lib PermissionError", "/usr PermissionError",
        "/ ['scratch']", "/usr/lib/graalpy/.. PermissionError", "/usr/lib/graalpy/lib/../.. PermissionError",
        "/usr/lib/graalpy/lib/.. ['include', 'lib', 'native-image.properties']", "/usr PermissionError",
        "/usr/lib PermissionError");
  }

  @Test
  void javascript_seesNoHostPathAndNoInterpreterFiles() {
    String real = hostHomes.get(0).toString();
    ExecutionResult r = sandbox.run(Script.of(Language.JAVASCRIPT, """
        const out = [String(new Error('x').stack)];
        try { null.x; } catch (e) { out.push(String(e.stack)); }
        try { eval('('); } catch (e) { out.push(String(e.stack)); }
        for (const p of ['/usr/lib/graalpy/lib/python3.12/os.py', '/usr/lib/graalpy', '/usr/lib']) {
          try { out.push('read ' + readText(p).length); } catch (e) { out.push(p + ' ' + e.message); }
        }
        try { readText(real + '/lib/python3.12/os.py'); out.push('read host'); } catch (e) { out.push(e.code || 'denied'); }
        out""").withInputs(Map.of("real", real)));
    assertThatRun(r).isOk().leaksNoHostDetail().recordedDenial(Operation.FILE_READ, HOME + "/lib/python3.12/os.py");
    List<String> v = (List<String>) r.value();
    assertThat(v).hasSize(7).noneMatch(s -> s.startsWith("read"));
    assertNoHostFact(String.join("\n", v.subList(0, 6)));
  }

  @Test
  void aMountAtInsideOrAroundTheVirtualHome_isRefusedWhenPythonIsAllowed() {
    for (String at : List.of("/usr/lib/graalpy", "/usr/lib/graalpy/lib/python3.12", "/usr", "/usr/lib")) {
      assertThatThrownBy(() -> Policy.builder().allowLanguages(Language.PYTHON).mount(Mount.scratch(at)).build())
          .as(at).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("mount " + at + " overlaps /usr/lib/graalpy, where Python guests find GraalPy's standard"
              + " library; mount it elsewhere");
    }
    assertThat(Policy.builder().allowLanguages(Language.PYTHON).mount(Mount.scratch("/usr/lib/graalpy2")).build()
        .mounts()).hasSize(1);
    assertThat(Policy.builder().allowLanguages(Language.JAVASCRIPT).mount(Mount.scratch("/usr/lib/graalpy")).build()
        .mounts()).as("JavaScript sees no interpreter home").hasSize(1);
  }
}

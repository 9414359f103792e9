package sush.gossip.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Reads PIT's {@code mutations.xml} reports (issue 21) and prints, per class and per package,
 * mutants generated, killed, survived (and without coverage), and the share killed; survivors
 * listed in {@code docs/mutation.md} as equivalent count apart and are left out of the share.
 * Ends with one JSON line of {@code killed_pct} per package. Used by {@code ./bench.sh mutation}.
 * Usage: {@code MutationReport docs/mutation.md MODULE/target/pit-reports/mutations.xml...}
 */
public final class MutationReport {
    private MutationReport() {
    }

    /** One mutant as PIT reported it. */
    record Mutant(String clazz, String method, int line, String mutator, String description, String status) {
        boolean killed() {
            return status.equals("KILLED") || status.equals("TIMED_OUT") || status.equals("MEMORY_ERROR");
        }

        String pkg() {
            return clazz.substring(0, clazz.lastIndexOf('.'));
        }

        String outer() {
            int dollar = clazz.indexOf('$');
            return dollar < 0 ? clazz : clazz.substring(0, dollar);
        }

        String mutatorName() {
            return mutator.substring(mutator.lastIndexOf('.') + 1);
        }
    }

    /** An equivalent mutant documented in docs/mutation.md: class, method, line, mutator. */
    record Equivalent(String clazz, String method, int line, String mutator) {
        boolean matches(Mutant m) {
            return m.clazz().equals(clazz) && m.method().equals(method) && m.line() == line
                    && m.mutatorName().equals(mutator);
        }
    }

    public static void main(String[] args) throws Exception {
        List<Equivalent> equivalents = equivalents(Path.of(args[0]));
        List<Mutant> all = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            Path report = Path.of(args[i]);
            if (Files.exists(report)) {
                all.addAll(read(report));
            } else {
                System.err.println("no report at " + report);
            }
        }
        Map<String, int[]> byClass = new TreeMap<>();
        Map<String, int[]> byPackage = new TreeMap<>();
        List<Mutant> survivors = new ArrayList<>();
        for (Mutant m : all) {
            if (m.status().equals("NON_VIABLE")) {
                continue;
            }
            boolean equivalent = !m.killed() && equivalents.stream().anyMatch(e -> e.matches(m));
            for (int[] c : List.of(byClass.computeIfAbsent(m.outer(), k -> new int[4]),
                    byPackage.computeIfAbsent(m.pkg().replaceAll("\\$.*", ""), k -> new int[4]))) {
                c[0]++;
                if (m.killed()) {
                    c[1]++;
                } else if (equivalent) {
                    c[3]++;
                } else {
                    c[2]++;
                }
            }
            if (!m.killed() && !equivalent) {
                survivors.add(m);
            }
        }
        System.out.printf(Locale.ROOT, "%-52s %6s %6s %6s %6s %8s%n", "class", "mutants", "killed", "alive", "equiv",
                "killed%");
        byClass.forEach((k, c) -> System.out.printf(Locale.ROOT, "%-52s %6d %6d %6d %6d %7.1f%%%n", k, c[0], c[1], c[2],
                c[3], pct(c)));
        System.out.println();
        System.out.printf(Locale.ROOT, "%-52s %6s %6s %6s %6s %8s%n", "package", "mutants", "killed", "alive", "equiv",
                "killed%");
        byPackage.forEach((k, c) -> System.out.printf(Locale.ROOT, "%-52s %6d %6d %6d %6d %7.1f%%%n", k, c[0], c[1],
                c[2], c[3], pct(c)));
        if (!survivors.isEmpty()) {
            System.out.println();
            System.out.println("survivors (class | method | line | mutator | what):");
            for (Mutant m : survivors) {
                System.out.printf(Locale.ROOT, "| %s | %s | %d | %s | %s (%s) |%n", m.clazz(), m.method(), m.line(),
                        m.mutatorName(), m.description(), m.status().toLowerCase(Locale.ROOT));
            }
        }
        StringBuilder json = new StringBuilder("{\"bench\":\"mutation\",\"killed_pct\":{");
        boolean first = true;
        for (Map.Entry<String, int[]> e : byPackage.entrySet()) {
            json.append(first ? "" : ",").append('"').append(e.getKey()).append("\":")
                    .append(String.format(Locale.ROOT, "%.1f", pct(e.getValue())));
            first = false;
        }
        int[] total = new int[4];
        byPackage.values().forEach(c -> {
            for (int i = 0; i < 4; i++) {
                total[i] += c[i];
            }
        });
        json.append(String.format(Locale.ROOT, "},\"mutants\":%d,\"killed\":%d,\"alive\":%d,\"equivalent\":%d}",
                total[0], total[1], total[2], total[3]));
        System.out.println(json);
    }

    /** Killed over mutants that are not documented equivalents. */
    static double pct(int[] c) {
        int counted = c[0] - c[3];
        return counted == 0 ? 100.0 : 100.0 * c[1] / counted;
    }

    static List<Mutant> read(Path report) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document d = f.newDocumentBuilder().parse(report.toFile());
        NodeList list = d.getElementsByTagName("mutation");
        List<Mutant> out = new ArrayList<>();
        for (int i = 0; i < list.getLength(); i++) {
            Element e = (Element) list.item(i);
            out.add(new Mutant(text(e, "mutatedClass"), text(e, "mutatedMethod"), Integer.parseInt(text(e, "lineNumber")),
                    text(e, "mutator"), text(e, "description"), e.getAttribute("status")));
        }
        return out;
    }

    private static String text(Element e, String tag) {
        NodeList n = e.getElementsByTagName(tag);
        return n.getLength() == 0 ? "" : n.item(0).getTextContent().trim();
    }

    private static final Pattern ROW = Pattern.compile(
            "^\\|\\s*(sush\\.[\\w.$]+)\\s*\\|\\s*([\\w<>$]+)\\s*\\|\\s*(\\d+)\\s*\\|\\s*(\\w+)\\s*\\|.*$");

    /** Rows of docs/mutation.md's tables: | class | method | line | mutator | why |. */
    static List<Equivalent> equivalents(Path doc) throws Exception {
        List<Equivalent> out = new ArrayList<>();
        if (!Files.exists(doc)) {
            return out;
        }
        for (String line : Files.readAllLines(doc)) {
            Matcher m = ROW.matcher(line.trim());
            if (m.matches()) {
                out.add(new Equivalent(m.group(1), m.group(2), Integer.parseInt(m.group(3)), m.group(4)));
            }
        }
        return out;
    }
}

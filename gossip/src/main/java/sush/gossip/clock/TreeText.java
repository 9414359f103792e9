package sush.gossip.clock;

/** Renders a leaf sequence in ITC's tree notation without recursion. */
final class TreeText {
    private TreeText() {
    }

    static String render(int[] depth, long[] value) {
        StringBuilder text = new StringBuilder();
        // For each open node: how many of its children are still to come.
        IntStack open = new IntStack();
        int level = 0;
        for (int k = 0; k < depth.length; k++) {
            for (; level < depth[k]; level++) {
                text.append('(');
                open.push(2);
            }
            text.append(value[k]);
            while (!open.isEmpty()) {
                int left = open.pop() - 1;
                if (left == 1) {
                    open.push(1);
                    text.append(", ");
                    break;
                }
                text.append(')');
                level--;
            }
        }
        return text.toString();
    }
}

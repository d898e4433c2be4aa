package io.basalt.cli.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cli.shell.ShellSyntax.Command;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShellSyntaxTest {

    private static Command one(String input) {
        List<Command> commands = ShellSyntax.parse(input);
        assertThat(commands).hasSize(1);
        return commands.getFirst();
    }

    @Test
    void parsesAnHBasePut() {
        Command put = one("put 't1', 'row1', 'cf:q', 'value 1', 42");
        assertThat(put.name()).isEqualTo("put");
        assertThat(put.args()).hasSize(5);
        assertThat((byte[]) put.args().get(0)).asString().isEqualTo("t1");
        assertThat((byte[]) put.args().get(3)).asString().isEqualTo("value 1");
        assertThat(put.args().get(4)).isEqualTo(42L);
    }

    @Test
    void doubleQuotesTakeHexEscapesSingleQuotesDoNot() {
        Command put = one("put \"t\", \"\\x00\\xFFa\", '\\x00'");
        assertThat((byte[]) put.args().get(1)).containsExactly(0x00, 0xFF, 'a');
        assertThat((byte[]) put.args().get(2)).asString().isEqualTo("\\x00");
    }

    @Test
    void parsesHashesArraysAndConstants() {
        Command scan = one("scan 't', {LIMIT => 10, STARTROW => 'a', COLUMNS => ['f:a', 'f:b'], REVERSED => true}");
        @SuppressWarnings("unchecked")
        Map<String, Object> options = (Map<String, Object>) scan.args().get(1);
        assertThat(options).containsKeys("LIMIT", "STARTROW", "COLUMNS", "REVERSED");
        assertThat(options.get("LIMIT")).isEqualTo(10L);
        assertThat(options.get("REVERSED")).isEqualTo(true);
        assertThat((List<?>) options.get("COLUMNS")).hasSize(2);
    }

    @Test
    void splitsOnSemicolonsAndNewLinesButNotInsideQuotesOrHashes() {
        List<Command> commands = ShellSyntax.parse("list; put 't', 'r;1', 'f:q', 'v'\nscan 't', {LIMIT => 1,\n STARTROW => 'a'}\n# comment\n");
        assertThat(commands).extracting(Command::name).containsExactly("list", "put", "scan");
        assertThat((byte[]) commands.get(1).args().get(1)).asString().isEqualTo("r;1");
    }

    @Test
    void knowsWhenInputIsIncomplete() {
        assertThat(ShellSyntax.incomplete("put 't', 'open")).isTrue();
        assertThat(ShellSyntax.incomplete("scan 't', {LIMIT => 1,")).isTrue();
        assertThat(ShellSyntax.incomplete("scan 't', {LIMIT => 1}")).isFalse();
    }

    @Test
    void errorsSayWhatIsWrong() {
        assertThatThrownBy(() -> ShellSyntax.parse("put 't', 'unclosed"))
                .hasMessage("string is not closed: missing '");
        assertThatThrownBy(() -> ShellSyntax.parse("scan 't', {LIMIT 1}"))
                .hasMessage("expected => after LIMIT");
        assertThatThrownBy(() -> ShellSyntax.parse("put 't' 'r'"))
                .hasMessageStartingWith("expected ',' at");
        assertThatThrownBy(() -> ShellSyntax.parse("get \"t\", \"\\xZZ\""))
                .hasMessage("\\xZZ is not a hex byte");
    }

    @Test
    void aHashWithoutBracesRunsToTheEndOfTheCommand() {
        List<ShellSyntax.Command> commands = ShellSyntax.parse("create 't', 'f', SPLITS => ['g', 'n'], X => 1");
        assertThat(commands).hasSize(1);
        List<Object> args = commands.getFirst().args();
        assertThat(args).hasSize(3);
        assertThat(args.get(2)).isInstanceOf(java.util.Map.class);
        java.util.Map<?, ?> hash = (java.util.Map<?, ?>) args.get(2);
        List<Object> keys = new java.util.ArrayList<>(hash.keySet());
        assertThat(keys).containsExactly("SPLITS", "X");
        assertThat((List<?>) hash.get("SPLITS")).hasSize(2);
        assertThatThrownBy(() -> ShellSyntax.parse("create 't', SPLITS => ['g'], 'f'"))
                .hasMessageContaining("last argument");
    }
}

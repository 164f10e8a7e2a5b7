#include <iostream>
#include <string>

using namespace std;

char shiftChar(char c, int k) {
    if (c >= 'a' && c <= 'z') return 'a' + (c - 'a' + k) % 26;
    if (c >= 'A' && c <= 'Z') return 'A' + (c - 'A' + k) % 26;
    return c;
}

int main() {
    long long shift;
    string line;
    getline(cin, line);
    shift = stoll(line);
    int k = ((shift % 26) + 26) % 26;
    while (getline(cin, line)) {
        string out = line;
        for (size_t i = 0; i < line.size(); i++) out[i] = shiftChar(line[i], k);
        cout << out << '\n';
    }
    return 0;
}

#include <iostream>
#include <string>

using namespace std;

string encode(const string &s) {
    string out;
    int i = 0;
    int n = s.size();
    while (i < n) {
        int j = i;
        while (j < n && s[j] == s[i]) j++;
        out += s[i];
        out += to_string(j - i);
        i = j;
    }
    return out;
}

int main() {
    string line;
    int lines = 0;
    while (getline(cin, line)) {
        cout << encode(line) << "\n";
        lines++;
    }
    return 0;
}
